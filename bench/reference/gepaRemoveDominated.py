# gepa 0.1.4's own dominated removal on score tables, for the tie-order differential
# (test/referenceGepa.test.ts). Reads a JSON list of tables (rows = candidates in pool order,
# columns = valset examples) on stdin; for each, builds the fronts with gepa's own state code
# (GEPAState._update_pareto_front_for_val_id, candidates in order, then the mapping gepa hands
# its selector) and prints the fronts remove_dominated_programs leaves, as one JSON list.
import json
import sys

from gepa.core.state import GEPAState
from gepa.gepa_utils import remove_dominated_programs


def fronts_of(rows):
    state = object.__new__(GEPAState)  # only the front fields: no run, no evaluations
    state.pareto_front_valset = {}
    state.program_at_pareto_front_valset = {}
    state.best_outputs_valset = None
    for index, row in enumerate(rows):
        for val_id, score in enumerate(row):
            GEPAState._update_pareto_front_for_val_id(state, val_id, score, index, None, None, 0)
    return GEPAState._get_pareto_front_mapping(state, "instance")


def main():
    tables = json.load(sys.stdin)
    out = []
    for rows in tables:
        means = [sum(row) / len(row) for row in rows]
        kept = remove_dominated_programs(fronts_of(rows), scores=means)
        out.append([sorted(kept[val_id]) for val_id in range(len(rows[0]))])
    json.dump(out, sys.stdout)


main()
