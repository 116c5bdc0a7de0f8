// Package relevance measures cheap rules for per-feature scales (issue
// #46, phase 1) with the public API of package kpls alone: kpls
// standardises every feature and gives the kernel one width, so an
// irrelevant feature costs as much distance as a relevant one. Each rule
// gives scales s_j in (0, 1] (the largest is 1); the features are
// standardised with the training rows' means and standard deviations,
// multiplied by s_j, and the default select runs on them
// (SelectOptions.RawFeatures). Per split of each data set:
//
//	iso       the default select on the raw features (standardised by kpls)
//	gop       s_j = g_j / max g, g_j = √(mean over the training rows of
//	          (∂f̂/∂x_j)²), the diagonal of the gradient outer product of
//	          the isotropic selection's best RBF grid point (its width and
//	          m, refitted by kpls.Fit to the standardised rows; the best
//	          point itself when it is an RBF). With k(x, z) =
//	          exp(−‖x − z‖²/(2w)) and f̂(x) = ȳ + k_c(x)ᵀα, ∂f̂/∂x =
//	          Σ_i β_i ∂k(x, x_i)/∂x with β = α − mean(α) (the centring;
//	          α sums to zero to rounding in kpls's fits) and
//	          ∂k(x, z)/∂x_j = −(x_j − z_j)/w · k(x, z)
//	gop-sqrt  s_j = √(g_j / max g)
//	gop2      one more round: the GOP of gop's own selection, taken back to
//	          standardised coordinates (s_j · ∂f̂/∂z_j)
//	kta       s_j = A_j / max A, A_j the alignment of the centred RBF kernel
//	          (width 1) of feature j alone with y: y_cᵀK_j y_c /
//	          (‖HK_jH‖_F ‖y_c‖²), a normalised HSIC
//	ard       s_j = min ℓ / ℓ_j from the length scales ℓ of scikit-learn's
//	          ARD Gaussian process (ardgp.py) on the same training rows: a
//	          peer-derived reference for what per-feature scales can give
//
// and the rules of keeping: gop-kept is gop when its predictor's CV error
// (Selection.PredictorRMSECV) is below iso's, else iso; cv-best the lowest
// CV error among iso, gop, gop-sqrt and gop2; ard-kept likewise for ard.
// Every select uses the same folds (seed 0). The scales of the GOP rules
// are learned from all the training rows, so their CV error is slightly
// optimistic against iso's; the held-out RMSE is not.
//
// The data are the public panel's small real sets, friedman1 (5 of its
// 10 features are noise) and constructed sets written by gen:
// kin8nm3000 (3,000 rows of kin8nm, 3 splits of 2,000 training and 750
// test rows), concrete_noise5 (concrete with 5 added N(0,1) columns) and
// concrete_rescaled (cement ÷ 1000: every standardising method is
// invariant to it, a check of the chain), the last two on concrete's
// splits. To reproduce (lab/relevance/results holds the outcome):
//
//	go run ./lab/cmd/kpls-lab panel gen --out /tmp/ard/panel --shared /work/shared/data \
//	    --sets boston,concrete,biomass,ozone,cox2,cps1985,carprices,meats,friedman1,kin8nm --max-train 2000
//	go run ./lab/cmd/kpls-lab relevance gen --panel /tmp/ard/panel
//	SETS=ozone,biomass,boston,cps1985,carprices,concrete,concrete_noise5,meats,friedman1,cox2,kin8nm3000,concrete_rescaled
//	/usr/bin/python3 lab/relevance/ardgp.py --panel /tmp/ard/panel --sets $SETS --out /tmp/ard/ard.jsonl
//	go run ./lab/cmd/kpls-lab relevance run --panel /tmp/ard/panel --sets $SETS --nested \
//	    --ard /tmp/ard/ard.jsonl --out /tmp/ard/results.jsonl
//	go run ./lab/cmd/kpls-lab relevance table --in /tmp/ard/results.jsonl --ard /tmp/ard/ard.jsonl
//
// --nested adds nested-iso and nested-gop: 5-fold CV errors in which the
// standardisation and the GOP scales are learned inside each fold (RBF
// widths d'·{1/16 … 4}, d' = Σ s_j², m ≤ 60), the honest guard that the
// table's gop-nested column keeps gop by.
//
// run appends one JSON line per split and skips the splits already in
// --out, so it resumes; run again after ardgp.py has finished, it adds
// the ard variant to the splits that were run before the GP reached them.
//
// lab/peer/panelpeers.py fits tuned HistGradientBoosting, kernel ridge
// and the ARD GP with restarts on the same splits as peers of the iso
// variant (issue #46, item 3); lab/panel/results/peers46.md is its table
// and the commands that made it.
//
// sample is the large-data form (issue #46, phase 2): the GOP scales
// learned on a seeded sample of the training rows (n/8, at least 2,048:
// what a screened select's first round sees; the best RBF point of the
// isotropic select on the sample, refitted there), then the default
// select on all training rows with the standardised features times the
// scales, against the isotropic select, both scored on the test rows:
//
//	go run ./lab/peer/split --from ../shared/data/protein.csv --train /tmp/ptrain.csv --test /tmp/ptest.csv
//	go run ./lab/cmd/kpls-lab relevance sample --train /tmp/ptrain.csv --test /tmp/ptest.csv --target RMSD
package relevance
