package stats

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ragbench/ragbench/internal/plural"
)

// The defaults of ragbench's significance testing, owned here and used by
// every caller (bench compare's flags, the sweep config's significance
// section, the gate): one number in one place.
const (
	// DefaultTest is the paired test when none is named.
	DefaultTest = Randomization
	// DefaultCorrection is the multiple-comparison correction when none is
	// named.
	DefaultCorrection = Holm
	// DefaultAlpha is the significance level (two-sided).
	DefaultAlpha = 0.05
	// DefaultPermutations is the number of Monte Carlo sign flips
	// (randomization) or permutations (Tukey HSD).
	DefaultPermutations = 10000
	// DefaultResamples is the number of bootstrap resamples (the bootstrap
	// test and every bootstrap confidence interval).
	DefaultResamples = 10000
	// MinResamples is the fewest bootstrap resamples accepted
	// (CheckResamples).
	MinResamples = 1000
	// DefaultExactMaxN is the largest number of non-zero differences for
	// which the randomization test enumerates every sign vector.
	DefaultExactMaxN = 20
	// DefaultConfidence is the level of confidence intervals.
	DefaultConfidence = 0.95
	// DefaultPower is the power of minimum detectable differences and
	// sample sizes.
	DefaultPower = 0.8
	// DefaultDetect is the true difference, in the metric's units, whose
	// required number of queries reports give (SampleSize) when none is
	// named: 0.05, the "real change" a set of about fifty questions is
	// meant to see (issue 23).
	DefaultDetect = 0.05
	// DefaultSeed is the seed of bench compare and of the sweep's
	// significance section.
	DefaultSeed = 42
	// SmallSample is the number of queries below which an estimate (a mean,
	// an interval, a p-value) is flagged as resting on too few queries:
	// about 20 is where the paired t and bootstrap approximations start to
	// hold on IR score differences (Sakai 2016, "Statistical significance,
	// power, and sample sizes"; Urbano et al., SIGIR 2019). See
	// SmallSampleWarning.
	SmallSample = 20
)

// TestSpec describes one Test for callers that list, validate or configure
// tests (help texts, config checks) without retyping their names.
type TestSpec struct {
	// Test is the canonical name, the one printed in reports.
	Test Test
	// Aliases are other names ParseTest accepts (lower case).
	Aliases []string
	// Description is the one-line description of Test.Description.
	Description string
	// Pairwise is true for the tests of two systems (Paired); false for
	// Tukey HSD, which compares all systems at once (TukeyHSD).
	Pairwise bool
	// Samples names the Options field that sets its number of random
	// samples: "permutations", "resamples", or "" (exact or analytic).
	Samples string
}

// TestSpecs lists every Test in the order of help texts.
var TestSpecs = []TestSpec{
	{Randomization, []string{"permutation", "fisher"}, "paired randomization test (sign flips of per-query differences, statistic = mean difference, two-sided)", true, "permutations"},
	{TTest, []string{"ttest", "t-test", "student"}, "paired Student t-test (two-sided)", true, ""},
	{Bootstrap, nil, "paired bootstrap test (shift method, statistic = mean difference, two-sided)", true, "resamples"},
	{Wilcoxon, nil, "Wilcoxon signed-rank test (scipy 1.10 defaults, two-sided)", true, ""},
	{Sign, nil, "sign test (two-sided binomial test on wins vs losses)", true, ""},
	{Tukey, []string{"tukey-hsd", "hsd"}, "randomized Tukey HSD (all systems at once, two-sided)", false, "permutations"},
}

// Tests lists every Test in the order shown in help texts.
var Tests = func() []Test {
	var out []Test
	for _, s := range TestSpecs {
		out = append(out, s.Test)
	}
	return out
}()

// Spec returns the TestSpec of t; false for a name that is not a Test.
func Spec(t Test) (TestSpec, bool) {
	i := slices.IndexFunc(TestSpecs, func(s TestSpec) bool { return s.Test == t })
	if i < 0 {
		return TestSpec{}, false
	}
	return TestSpecs[i], true
}

// TestNames returns the canonical test names in help-text order; only the
// two-system tests (those Paired runs) when pairwiseOnly.
func TestNames(pairwiseOnly bool) []string {
	var out []string
	for _, s := range TestSpecs {
		if s.Pairwise || !pairwiseOnly {
			out = append(out, string(s.Test))
		}
	}
	return out
}

// ParseTest returns the Test named s (case-insensitive; the aliases of
// TestSpecs, such as "ttest" and "fisher", are accepted), or an error
// listing the valid names.
func ParseTest(s string) (Test, error) {
	name := strings.ToLower(strings.TrimSpace(s))
	for _, spec := range TestSpecs {
		if name == string(spec.Test) || slices.Contains(spec.Aliases, name) {
			return spec.Test, nil
		}
	}
	return "", fmt.Errorf("unknown test %q (want one of %s)", s, strings.Join(TestNames(false), ", "))
}

// Description returns a one-line human description of t for reports, such
// as "paired randomization test (sign flips, statistic = mean difference)".
func (t Test) Description() string {
	if s, ok := Spec(t); ok {
		return s.Description
	}
	return string(t)
}

// Corrections lists every Correction in the order of help texts.
var Corrections = []Correction{Holm, Bonferroni, BH, None}

// CorrectionNames returns the names of Corrections.
func CorrectionNames() []string {
	var out []string
	for _, c := range Corrections {
		out = append(out, string(c))
	}
	return out
}

// SmallSampleWarning returns the warning to show beside an estimate that
// rests on n queries when n < SmallSample ("" otherwise), what naming the
// estimate: SmallSampleWarning(6, "held-out mean") is "held-out mean: only 6
// queries (fewer than 20): indicative only".
func SmallSampleWarning(n int, what string) string {
	if n >= SmallSample {
		return ""
	}
	return fmt.Sprintf("%s: only %s (fewer than %d): indicative only", what, plural.Count(n, "query", "queries"), SmallSample)
}
