# Everything sets itself up: `make demo` and `make test` need only python3 (>= 3.10) and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
DOCS_STAMP := $(VENV)/.installed-docs
DEMO_MEASURES := alpha-nDCG@10,nERR-IA@10,NRBP,MAP-IA,P-IA@10,strec@10

.PHONY: demo test test-sweeps test-dask test-long test-golden-numpy test-no-compiler bench docs clean report-screenshot

$(STAMP): pyproject.toml setup.py $(wildcard divaleval/native/*.c divaleval/native/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/divaleval -f table -m $(DEMO_MEASURES) sample_data/qrels.txt sample_data/runs/

# The package's bytecode, compiled once: the tests start hundreds of divaleval processes, and where
# PYTHONDONTWRITEBYTECODE is set (as on our CI machines) each would otherwise compile every module again.
BYTECODE := $(BIN)/python -m compileall -q divaleval

test: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -n auto

# Every recorded call of trec_eval's and gdeval.pl's references through the drop-ins (a minute; CI runs it).
test-sweeps: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -m sweep

# Scoring and resampling on real Dask clusters (a scheduler and workers started by the tests; 1-3 minutes).
test-dask: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -m dask

# The long profiles (not in `make test`): property-based cases by the ten thousand, a 10M-line run's memory.
test-long: $(STAMP)
	$(BYTECODE)
	$(BIN)/python -m pytest -m long

# The golden suites (values from reference tools, papers and hand computations: pytest -m golden) run again
# with the compiled kernels turned off: the numpy and Arrow paths must give the same values (about a minute).
GOLDEN := -m 'golden and not long and not dask'
test-golden-numpy: $(STAMP)
	$(BYTECODE)
	DIVALEVAL_NATIVE=0 $(BIN)/python -m pytest $(GOLDEN)

# An install where no C compiler is found (CC=/bin/false): divaleval must install without its compiled kernels
# and pass the golden suites. Its own venv, installed (not editable) from a copy of the package without any
# kernels built in this tree for .venv/, and run from inside that venv so that nothing imports the source tree.
NOCC_VENV := .venv-no-compiler
NOCC_SOURCE := $(NOCC_VENV)/source
NO_COMPILER := CC=/bin/false CXX=/bin/false
test-no-compiler:
	test -x $(NOCC_VENV)/bin/python || $(PYTHON) -m venv $(NOCC_VENV)
	rm -rf $(NOCC_SOURCE) && mkdir -p $(NOCC_SOURCE)
	cp -R divaleval pyproject.toml setup.py README.md $(NOCC_SOURCE)/
	find $(NOCC_SOURCE) \( -name '*.so' -o -name '*.pyd' -o -name __pycache__ \) -prune -exec rm -rf {} +
	$(NO_COMPILER) $(NOCC_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-cache-dir \
		'./$(NOCC_SOURCE)[test]'
	$(NO_COMPILER) $(NOCC_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-cache-dir \
		--force-reinstall --no-deps ./$(NOCC_SOURCE)
	cd $(NOCC_VENV) && env -u DIVALEVAL_REQUIRE_NATIVE ./bin/python -c 'import divaleval.native as n, sys; \
		print("divaleval.native from", n.__file__, "- compiled kernels built:", n.built()); sys.exit(n.built())'
	cd $(NOCC_VENV) && env -u DIVALEVAL_REQUIRE_NATIVE ./bin/python -m pytest -c $(CURDIR)/pyproject.toml \
		--rootdir $(CURDIR) -p no:cacheprovider $(GOLDEN) $(CURDIR)/tests

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The speed benchmark (not part of the tests): against pyndeval, the reading floor, ir_measures and ranx where
# installed, and ndeval where NDEVAL= names its binary or its source; BENCH_ARGS=--quick for a small one;
# BENCH_ARGS=--scale-out for 1,000 runs in one process against a Dask LocalCluster of 2 workers.
bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

$(DOCS_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[docs]'
	touch $(DOCS_STAMP)

# The documentation site, into site/ (git-ignored; open site/index.html). The measures reference is written
# again from the catalogue first (commit it when it changes: tests/test_docs.py fails while it is stale);
# the CLI and API references are generated in the build. Strict: a warning (a broken link or anchor, a page
# missing from the nav) fails it. NO_MKDOCS_2_WARNING silences Material's notice about MkDocs' future,
# which is printed at every build and says nothing about this site.
docs: $(DOCS_STAMP)
	$(BIN)/python -m divaleval.output.reference docs/reference/measures.md
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

# The screenshot of docs/commands/report.md and the README: the report of the 8 TREC 2012 baselines (from
# ../shared, or TREC2012=DIR) in headless Chromium (Debian's chromium package).
TREC2012 ?= ../shared/data/trec-web/2012
REPORT_MEASURES := ERR-IA@20,alpha-nDCG@20,NRBP,MAP-IA,P-IA@10,strec@10
report-screenshot: $(STAMP)
	rm -rf build/report-trec2012 build/chromium-profile
	$(BIN)/divaleval report -q -m $(REPORT_MEASURES) -o build/report-trec2012 \
	    $(TREC2012)/qrels.diversity.txt $(TREC2012)/baseline-runs/*/*
	chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
	    --disable-component-update --disable-sync --hide-scrollbars --user-data-dir=build/chromium-profile \
	    --window-size=1200,1000 --screenshot=docs/report-trec2012.png file://$(CURDIR)/build/report-trec2012/index.html

clean:
	rm -rf $(VENV) $(NOCC_VENV) site
