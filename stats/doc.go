// Package stats holds ragbench's paired significance tests over per-query
// scores of retrieval systems evaluated on the same queries.
//
// Every test works on the per-query differences d_i = a_i − b_i of two
// systems A and B (i = 1..n, one value per query) and is two-sided:
//
//   - TTest: paired Student t-test, t = mean(d) / (sd(d)/√n), sd with n−1,
//     p from Student's t with n−1 degrees of freedom (scipy.stats.ttest_rel).
//   - Randomization: paired randomization (sign-flip, "Fisher") test with
//     statistic mean(d). Exact enumeration of all 2^n sign vectors for
//     n ≤ Options.ExactMaxN (default 20); otherwise Monte Carlo with
//     B = Options.Permutations (default 10,000) random sign vectors and
//     p = (b+1)/(B+1), where b counts |mean(d*)| ≥ |mean(d)|, so p > 0
//     (Phipson & Smyth 2010; Smucker, Allan & Carterette, CIKM 2007).
//   - Bootstrap: paired bootstrap (Efron & Tibshirani 1993, §16.4; Sakai,
//     SIGIR 2006): B = Options.Resamples resamples of d with replacement;
//     the percentile confidence interval of mean(d) and the shift-method
//     p-value p = (b+1)/(B+1), b counting |mean(d*) − mean(d)| ≥ |mean(d)|.
//   - Wilcoxon: Wilcoxon signed-rank test exactly as scipy 1.10
//     scipy.stats.wilcoxon(x, y) with its defaults (zero_method "wilcox",
//     no continuity correction, method "auto").
//   - Sign: sign test, the two-sided binomial test of #(d>0) among the
//     non-zero differences with p = 1/2 (scipy.stats.binomtest).
//   - Tukey: randomized Tukey HSD over m ≥ 2 systems at once (Carterette,
//     TOIS 2012; Sakai, "Laboratory Experiments in IR", 2018, §4.5), which
//     controls the family-wise error rate over all pairs by itself.
//
// Wilcoxon and the sign test are available but not recommended for IR
// evaluation: Smucker, Allan & Carterette (CIKM 2007) found them to
// disagree with the t-test, randomization and bootstrap tests, which agree
// with each other; ragbench's default is the randomization test.
//
// Multiple comparisons are corrected with Adjust (Holm by default,
// Bonferroni, Benjamini–Hochberg, none). Effect sizes (mean difference with
// its 95% t-interval, Cohen's d_z, wins/ties/losses, the minimum detectable
// difference at 80% power) come with every Result.
//
// Beyond p-values, for deciding on small sets (30–50 questions):
//
//   - BootstrapInterval: the paired bootstrap confidence interval of the
//     mean difference, BCa (default) or percentile, as
//     scipy.stats.bootstrap(paired=True) defines them; seeded.
//   - TOST: equivalence within ±δ by two one-sided paired t-tests
//     (statsmodels ttost_paired), so that "no change" can be shown rather
//     than only "no significant change".
//   - Power, MDD and SampleSize: the paired t approximation (statsmodels
//     TTestPower) of the power of a test, the minimum detectable difference
//     at a power, and the number of queries needed to detect a difference,
//     from the observed per-query standard deviation; PlanAlpha gives the
//     per-comparison level of a plan of m corrected comparisons.
//   - SmallSampleWarning flags estimates resting on fewer than SmallSample
//     (20) queries.
//
// The defaults (DefaultTest, DefaultPermutations, DefaultAlpha, ...) and
// the table of tests (TestSpecs, TestNames, Corrections) are owned here;
// callers validate and document names and defaults through them.
//
// Determinism: Monte Carlo tests draw from a PCG generator seeded with
// Options.Seed and Options.Stream; derive the stream of one comparison from
// its names with Stream, so results do not depend on scheduling or
// GOMAXPROCS.
//
// Bad input never panics: NaN or infinite scores are an error naming the
// query id; degenerate samples (no query, n = 1, all differences zero) give
// p = 1 with a warning carried in Result.Warnings, and no interval
// (Effect.CIDefined, Interval.Defined false). No result of this package
// holds a NaN or an infinity, so every one can be written as JSON.
package stats
