# Everything sets itself up: `make demo` and `make test` need only python3 (>= 3.10) and make.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DEMO_MEASURES := alpha-nDCG@10,nERR-IA@10,NRBP,MAP-IA,P-IA@10,strec@10

.PHONY: demo test clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/divaleval -f table -m $(DEMO_MEASURES) sample_data/qrels.txt sample_data/runs/

test: $(STAMP)
	$(BIN)/python -m pytest

clean:
	rm -rf $(VENV)
