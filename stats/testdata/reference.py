"""Reference values for stats' reference tests (TestReferences).

Reads JSON from stdin: {"cases": [{"a": [...], "b": [...], "margin": d,
"detect": x, "alpha": a, "power": p, "resamples": B, "confidence": c}]}
and writes, per case:
  - bca, percentile: scipy.stats.bootstrap((a, b), mean of a - b,
    paired=True, method="BCa" / "percentile") intervals, B resamples;
  - tost: statsmodels.stats.weightstats.ttost_paired(a, b, -margin, margin)
    p-value and the two one-sided p-values;
  - nobs: statsmodels TTestPower().solve_power(effect_size=detect/sd,
    alpha, power, alternative="two-sided"), sd the sample sd of a - b (ddof 1);
  - power_at: TTestPower().power(effect_size=mdd/sd, nobs=n, alpha) for the
    mdd the caller passes, to check that the MDD has the stated power.
"""
import json
import sys

import numpy as np
from scipy import stats
from statsmodels.stats.power import TTestPower
from statsmodels.stats.weightstats import ttost_paired

doc = json.load(sys.stdin)
out = []
for c in doc["cases"]:
    a, b = np.asarray(c["a"], float), np.asarray(c["b"], float)
    d = a - b
    res = {}
    for method in ("BCa", "percentile"):
        r = stats.bootstrap(
            (a, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            paired=True,
            vectorized=True,
            n_resamples=c["resamples"],
            confidence_level=c["confidence"],
            method=method,
            random_state=np.random.default_rng(12345),
        )
        res[method.lower()] = [float(r.confidence_interval.low), float(r.confidence_interval.high)]
    p, lower, upper = ttost_paired(a, b, -c["margin"], c["margin"])
    res["tost"] = {"p": float(p), "p_lower": float(lower[1]), "p_upper": float(upper[1])}
    sd = float(np.std(d, ddof=1))
    res["sd"] = sd
    res["nobs"] = float(TTestPower().solve_power(effect_size=c["detect"] / sd, alpha=c["alpha"], power=c["power"], alternative="two-sided"))
    res["power_at"] = float(TTestPower().power(effect_size=c["mdd"] / sd, nobs=len(d), alpha=c["alpha"], alternative="two-sided"))
    out.append(res)
json.dump(out, sys.stdout)
