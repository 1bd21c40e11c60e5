# The Python side of the reference bridge: runs gepa (the reference implementation, the paper's
# v0.1.4, imported from a checkout on PYTHONPATH; nothing of it is installed or committed here) on
# one of our bench tasks. Every metric call, reflective dataset and reflection goes back to the
# Node driver (bench/reference.ts) over JSON lines (`ask`, shared with gepaAnythingBridge.py): a request on stdout, its answer on stdin. So
# the reference runs with our simulated task and reflection models, examples and valset, and only
# its own rules decide what to evaluate, propose, accept and keep. Bench tool only.
import json
import sys

PROTOCOL_OUT = sys.stdout
sys.stdout = sys.stderr  # anything gepa prints must not reach the protocol stream

from gepa.api import optimize  # noqa: E402
from gepa.core.adapter import EvaluationBatch  # noqa: E402
from gepa.strategies.proposal_sampling import PxNSampling  # noqa: E402


def ask(op, **fields):
    PROTOCOL_OUT.write(json.dumps({"op": op, **fields}) + "\n")
    PROTOCOL_OUT.flush()
    line = sys.stdin.readline()
    if not line:
        raise SystemExit("the driver closed the bridge")
    answer = json.loads(line)
    if "error" in answer:
        raise RuntimeError(answer["error"])
    return answer


class SilentLogger:
    def log(self, message):
        pass


class BridgeAdapter:
    """Examples are {"split", "i"} references into the driver's tables; traces are tokens of the
    driver's stored evaluations, so the reflective dataset is built by our task's own adapter."""

    propose_new_texts = None

    def evaluate(self, batch, candidate, capture_traces=False):
        answer = ask("evaluate", candidate=candidate, examples=batch, traces=capture_traces)
        return EvaluationBatch(
            outputs=answer["outputs"],
            scores=answer["scores"],
            trajectories=answer["tokens"] if capture_traces else None,
        )

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        answer = ask("dataset", candidate=candidate, tokens=eval_batch.trajectories, components=components_to_update)
        return answer["dataset"]


class StepRecorder:
    """What each iteration chose and decided, for the step differential (bench/reference.ts diff)."""

    def __init__(self):
        self.steps = {}
        self.merges = {"tried": 0, "accepted": 0}

    def on_merge_attempted(self, event):
        self.merges["tried"] += 1

    def on_merge_accepted(self, event):
        self.merges["accepted"] += 1

    def _step(self, iteration):
        return self.steps.setdefault(iteration, {"parents": [], "minibatches": [], "skipped": 0, "accepted": [], "rejected": []})

    def on_candidate_selected(self, event):
        self._step(event["iteration"])["parents"].append(event["candidate_idx"])

    def on_minibatch_sampled(self, event):
        self._step(event["iteration"])["minibatches"].append(list(event["minibatch_ids"]))

    def on_evaluation_skipped(self, event):
        self._step(event["iteration"])["skipped"] += 1

    def on_candidate_accepted(self, event):
        self._step(event["iteration"])["accepted"].append(event["new_candidate_idx"])

    def on_candidate_rejected(self, event):
        self._step(event["iteration"])["rejected"].append(event["reason"])

    def __getattr__(self, name):
        if name.startswith("on_"):
            return lambda event: None
        raise AttributeError(name)


def reflection_lm(prompt):
    return ask("reflect", prompt=prompt)["text"]


def main():
    setup = ask("setup")
    shape = setup["shape"]
    recorder = StepRecorder()
    result = optimize(
        seed_candidate=setup["seedCandidate"],
        trainset=setup["trainset"],
        valset=setup["valset"],
        adapter=BridgeAdapter(),
        reflection_lm=reflection_lm,
        # Our reflection prompt's wording around the reference's own rendering of the records, so
        # the simulated reflection model reads the same request (it takes the component's name
        # from it) whichever implementation asks.
        reflection_prompt_template=setup["promptTemplates"],
        reflection_minibatch_size=setup["minibatchSize"],
        use_merge=setup["maxMerges"] > 0,
        max_merge_invocations=max(setup["maxMerges"], 1),
        max_metric_calls=setup["maxMetricCalls"],
        sampling_strategy=PxNSampling(shape["parents"], shape["perParent"]),
        seed=setup["seed"],
        logger=SilentLogger(),
        track_best_outputs=False,
        raise_on_exception=True,
        callbacks=[recorder],
    )
    ask(
        "result",
        candidates=result.candidates,
        parents=[[p for p in ps if p is not None] for ps in result.parents],
        valScores=result.val_aggregate_scores,
        bestIndex=result.best_idx,
        metricCalls=result.total_metric_calls,
        discoveryMetricCalls=result.discovery_eval_counts,
        steps=[recorder.steps[i] for i in sorted(recorder.steps)],
        merges=recorder.merges,
    )


if __name__ == "__main__":
    main()
