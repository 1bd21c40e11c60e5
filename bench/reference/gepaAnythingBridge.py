# The Python side of the optimize_anything bridge: runs gepa 0.1.4's primary API,
# gepa.optimize_anything, on one of our optimizeAnything bench tasks (src/demo/anything/). The
# evaluator and the reflection LM are the Node driver's (bench/reference/anythingBridge.ts): each
# evaluation and each reflection goes there over the same JSON-lines protocol as gepaBridge.py,
# so gepa's own rules (mode, reflection prompt with objective and background, minibatch size,
# selection, acceptance) decide what to evaluate, propose and keep. Bench tool only.
from gepaBridge import SilentLogger, ask  # noqa: I001 (first: it moves print() off the protocol stream)

from gepa.adapters.optimize_anything_adapter.optimize_anything_adapter import OptimizeAnythingAdapter  # noqa: E402
from gepa.optimize_anything import EngineConfig, GEPAConfig, ReflectionConfig, TrackingConfig, optimize_anything  # noqa: E402
from gepa.strategies.proposal_sampling import PxNSampling  # noqa: E402

STR_KEY = "current_candidate"  # how optimize_anything wraps a string seed
_evaluate_batch = OptimizeAnythingAdapter.evaluate


def _marked_batch(self, batch, candidate, capture_traces=False):
    """Tells the driver where one of gepa's batches starts (its wall-clock charges a batch its slowest call)."""
    ask("batch", size=len(batch))
    return _evaluate_batch(self, batch, candidate, capture_traces)


OptimizeAnythingAdapter.evaluate = _marked_batch


def evaluate(candidate, example=None):
    """One evaluator call; in single-task search gepa calls it without an example."""
    answer = ask("evaluate", candidate=candidate, example=example)
    return answer["score"], answer["sideInfo"]


def reflection_lm(prompt):
    if not isinstance(prompt, str):
        raise TypeError("the bench tasks send no images: the reflection prompt must be text")
    return ask("reflect", prompt=prompt)["text"]


def main():
    setup = ask("setup")
    shape = setup["shape"]
    config = GEPAConfig(
        engine=EngineConfig(
            max_metric_calls=setup["maxMetricCalls"],
            seed=setup["seed"],
            # One call at a time: the driver answers in order, and the run is a function of the seed.
            parallel=False,
            track_best_outputs=False,
            raise_on_exception=True,
            sampling_strategy=PxNSampling(shape["parents"], shape["perParent"]),
        ),
        reflection=ReflectionConfig(reflection_lm=reflection_lm),
        tracking=TrackingConfig(logger=SilentLogger()),
    )
    result = optimize_anything(
        seed_candidate=setup["seedCandidate"],
        evaluator=evaluate,
        dataset=setup.get("dataset"),
        valset=setup.get("valset"),
        objective=setup["objective"],
        background=setup["background"],
        config=config,
    )
    ask(
        "result",
        candidates=[c[STR_KEY] for c in result.candidates],
        parents=[[p for p in ps if p is not None] for ps in result.parents],
        valScores=result.val_aggregate_scores,
        bestIndex=result.best_idx,
        metricCalls=result.total_metric_calls,
        discoveryMetricCalls=result.discovery_eval_counts,
    )


if __name__ == "__main__":
    main()
