# make plots: the pictures, each as SVG and PNG in results/plots/, drawn by gnuplot (Debian gnuplot-nox)
# from data our own programs write. Included by the Makefile.
#   accuracy     accuracy against test length for every scheme, one panel per task (extension runs)
#   extension    the RoPE models with no extension, PI, NTK and YaRN, one panel per task and base
#   rope_score   RoPE's score against distance for bases 10,000 and 1,000,000: the long-range decay
#   wavelengths  each pair's wavelength: the chapter's bases (H = 128), and the experiment's (H = 64)
#   attention    attention maps of lag's learned and rope models (first seed) on one test sequence of 128
# The accuracies come from make experiment-extension (run first if needed; it resumes and skips what
# is done); build/plots/rope_curves and build/plots/attention_maps write results/plots/data/.
# Leaves out the experiment itself (tasks/extension.mk).
.PHONY: plots check-gnuplot
PLOTS_DIR      := $(RESULTS)/plots
PLOT_NAMES     := accuracy extension rope_score wavelengths attention
PLOT_PROGRAMS  := $(BUILD)/plots/rope_curves $(BUILD)/plots/attention_maps
.SECONDARY: $(PLOT_PROGRAMS:%=%.o)

$(BUILD)/plots/%: $(BUILD)/plots/%.o $(LIBRARY)
	$(CXX) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# gnuplot is checked first: the experiment before the pictures may take a while.
check-gnuplot:
	@command -v gnuplot >/dev/null || { echo "missing: gnuplot; run 'make deps' (Debian package gnuplot-nox)"; exit 1; }

plots: check-gnuplot experiment-extension $(PLOT_PROGRAMS)
	@mkdir -p $(PLOTS_DIR)/data
	@$(BUILD)/plots/rope_curves $(PLOTS_DIR)/data
	@for scheme in learned rope; do \
	  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BUILD)/plots/attention_maps \
	    $(EXTENSION_DIR)/weights/lag_$${scheme}_seed$(firstword $(SEEDS)).safetensors \
	    $(PLOTS_DIR)/data/attention_lag_$$scheme || exit 1; done
	@for name in $(PLOT_NAMES); do for format in svg png; do \
	  gnuplot -e "format='$$format'; out='$(PLOTS_DIR)'; data='$(PLOTS_DIR)/data'; extension='$(EXTENSION_DIR)'" \
	    plots/$$name.gp || exit 1; done; echo "plots: $(PLOTS_DIR)/$$name.svg and .png"; done
