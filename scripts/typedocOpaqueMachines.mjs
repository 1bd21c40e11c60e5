// A TypeDoc plugin: the API reference shows an exported XState machine or actor logic by the
// type's name (`StateMachine`, `CallbackActorLogic`), not by the type arguments XState infers
// from the machine's whole definition (every state, action and event object, hundreds of
// members no user writes or reads). What a user passes in and gets out is documented on the
// export's own doc comment and on the protocol types.
import { Converter, ReferenceType, ReflectionKind } from 'typedoc';

/** @param {import('typedoc').Application} app */
export function load(app) {
  app.converter.on(Converter.EVENT_RESOLVE_BEGIN, (context) => {
    const project = context.project;
    for (const variable of project.getReflectionsByKind(ReflectionKind.Variable)) {
      const type = variable.type;
      if (!(type instanceof ReferenceType) || type.package !== 'xstate' || !type.typeArguments) continue;
      type.typeArguments = undefined;
      for (const reflection of Object.values(project.reflections)) {
        if (reflection !== variable && isInside(reflection, variable)) project.removeReflection(reflection);
      }
    }
  });
}

function isInside(reflection, ancestor) {
  for (let parent = reflection.parent; parent; parent = parent.parent) if (parent === ancestor) return true;
  return false;
}
