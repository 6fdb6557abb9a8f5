import json, sys
from bench import store
from bench._common import Settings
r = store.run_long_waits(Settings(quick=False))
out = {k: {kk: vv for kk, vv in v.items() if kk != 'samples'} for k, v in r['backends'].items()}
json.dump(r, open(sys.argv[1], "w"))
for k, v in out.items():
    s = v["stats"]
    print(k, f"p50 {s['p50']:.2f} p90 {s['p90']:.2f} p99 {s['p99']:.2f} max {s['max']:.2f} cpu {v['agent']['cpu_percent']:.3f}% wake {v['agent']['wakeups_per_s']:.1f}/s ok {v['all_answered']}")
