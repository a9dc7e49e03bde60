# make plots: the pictures, each as SVG and PNG in results/plots/, drawn by gnuplot (Debian gnuplot-nox)
# from data our own programs write. Included by the Makefile.
#   experiment   accuracy against test length (32, 64, 128) for the chapter's seven schemes, one panel
#                per task, from make experiment's table (make experiment draws it too)
#   attention    attention maps of lag's learned and rope models (first seed), from the weights make
#                experiment saves beside each result, on one test sequence of 128
#   rope_score   RoPE's score against distance for bases 10,000 and 1,000,000: the long-range decay
#   wavelengths  each pair's wavelength: the chapter's bases (H = 128), and the experiment's (H = 64)
# and, when make experiment-extension's results are there:
#   accuracy     accuracy against test length up to 512 for every scheme and t5, one panel per task
#   extension    the RoPE models with no extension, PI, NTK and YaRN, one panel per task and base
# make plots needs make experiment's results (it says so otherwise) and runs nothing long itself;
# build/plots/rope_curves and build/plots/attention_maps write results/plots/data/. Every file is written
# whole or not at all: the data by files/atomic_file.hpp, each picture by plots/draw.sh (a full disk
# gives one line and exit status 1, never a cut picture). What is drawn is checked first: the accuracy
# tables as the collectors write them (plots/check_data.sh), and each attention map's weights the run
# the picture names (attention_maps --run).
# Leaves out the experiments themselves (the Makefile, experiment/extension.mk).
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

PLOT_WEIGHTS := $(foreach s,learned rope,$(RESULTS)/runs/lag_$(s)_seed$(firstword $(SEEDS)).safetensors)
plots: check-gnuplot $(PLOT_PROGRAMS)
	@for file in $(RESULTS)/data/lag.dat $(RESULTS)/data/seen.dat $(PLOT_WEIGHTS); do [ -f $$file ] || \
	  { echo "plots: $$file is missing; run make experiment first (make plots draws its results)" >&2; exit 1; }; done
	@sh plots/check_data.sh $(RESULTS)/data/lag.dat $(RESULTS)/data/seen.dat
	@mkdir -p $(PLOTS_DIR)/data
	@$(BUILD)/plots/rope_curves $(PLOTS_DIR)/data
	@for scheme in learned rope; do \
	  OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 $(BUILD)/plots/attention_maps \
	    --run lag $$scheme $(firstword $(SEEDS)) $(RESULTS)/runs/lag_$${scheme}_seed$(firstword $(SEEDS)).safetensors \
	    $(PLOTS_DIR)/data/attention_lag_$$scheme || exit 1; done
	@names="experiment attention rope_score wavelengths"; \
	 if [ -f $(EXTENSION_DIR)/lag.dat ] && [ -f $(EXTENSION_DIR)/seen.dat ]; then \
	   sh plots/check_data.sh $(EXTENSION_DIR)/lag.dat $(EXTENSION_DIR)/seen.dat || exit 1; names="$$names accuracy extension"; \
	 else echo "plots: no results of make experiment-extension in $(EXTENSION_DIR): accuracy and extension are left out"; fi; \
	 for name in $$names; do \
	  sh plots/draw.sh $$name $(PLOTS_DIR) "data='$(PLOTS_DIR)/data'; extension='$(EXTENSION_DIR)'; experiment='$(RESULTS)/data'" \
	    || exit 1; echo "plots: $(PLOTS_DIR)/$$name.svg and .png"; done
