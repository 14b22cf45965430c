# Everything sets itself up: `make demo` and `make test` need only python3 (>= 3.10) and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BENCH_STAMP := $(VENV)/.installed-bench
DEMO_MEASURES := alpha-nDCG@10,nERR-IA@10,NRBP,MAP-IA,P-IA@10,strec@10

.PHONY: demo test test-dask test-long bench clean

$(STAMP): pyproject.toml setup.py $(wildcard divaleval/native/*.c divaleval/native/*.h)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/divaleval -f table -m $(DEMO_MEASURES) sample_data/qrels.txt sample_data/runs/

test: $(STAMP)
	$(BIN)/python -m pytest

# Scoring and resampling on real Dask clusters (a scheduler and workers started by the tests; 1-3 minutes).
test-dask: $(STAMP)
	$(BIN)/python -m pytest -m dask

# The long profiles (not in `make test`): property-based cases by the ten thousand, a 10M-line run's memory.
test-long: $(STAMP)
	$(BIN)/python -m pytest -m long

$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test,bench]'
	touch $(BENCH_STAMP)

# The speed benchmark (not part of the tests): against pyndeval, the reading floor, ir_measures and ranx where
# installed, and ndeval where NDEVAL= names its binary or its source; BENCH_ARGS=--quick for a small one;
# BENCH_ARGS=--scale-out for 1,000 runs in one process against a Dask LocalCluster of 2 workers.
bench: $(BENCH_STAMP)
	$(BIN)/python bench/bench.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV)
