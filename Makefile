# ReAct Lab. `make run` starts the app on the on-device default; `make test` runs the whole suite.
# Both create .venv and install what they need, so a fresh machine needs nothing else.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# llama-cpp-python compiles from source where no wheel exists (once; pip's cache keeps the wheel).
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

# Tests that do not run the on-device model in-process run on two workers (pytest-xdist; a file's tests stay together,
# so a module's server or browser starts once), those whose model server runs on one core among them. Those that do run
# after them in one process: the model uses every core, and two llama.cpp thread pools on two cores slow each other
# down many times over. PARALLEL= runs the first part in one too. The engine is compiled once before the workers start.
PARALLEL ?= -n 2 --dist loadfile
# Python keeps compiled modules (and pytest its rewritten test modules) in __pycache__: with this variable set, every
# worker, server and command a test starts compiled the whole engine and rewrote every test module again.
unexport PYTHONDONTWRITEBYTECODE
QUICK := not model and not browser and not server and not training
# The quick tests wait a quarter of the time on the local servers and commands they start (two workers left a
# quarter of two cores idle), and none runs a model or a browser that a third worker would slow down.
QUICK_PARALLEL ?= -n 3 --dist loadfile

.PHONY: run test test-quick lint bench install install-dev chromium postgresql curl phoenix finetune-env clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(VENV)/.runtime-installed: requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install -r requirements.txt
	touch $@

$(VENV)/.dev-installed: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/python -m pip install -r requirements-dev.txt
	touch $@ $(VENV)/.runtime-installed

install: $(VENV)/.runtime-installed

install-dev: $(VENV)/.dev-installed

run: install
	$(BIN)/python -m streamlit run app.py

# The browser journey drives Debian's Chromium (never a downloaded browser).
chromium:
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium for the browser test…"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# The history tests run against a real PostgreSQL server started from Debian's postgresql package (never a download).
postgresql:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { \
	  echo "Installing Debian's postgresql for the history tests…"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; }

# The snippet tests run the cURL command a model call is shown as with Debian's curl.
curl:
	@command -v curl >/dev/null 2>&1 || { \
	  echo "Installing Debian's curl for the snippet tests…"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq curl >/dev/null; }

# The OpenTelemetry tests send runs to a real Arize Phoenix server, kept in a virtualenv of its own: its dependencies
# (google-genai<3) clash with the app's.
PHOENIX_VENV := .venv-phoenix

$(PHOENIX_VENV)/.installed: requirements-phoenix.txt
	$(PYTHON) -m venv $(PHOENIX_VENV)
	$(PHOENIX_VENV)/bin/python -m pip install -r requirements-phoenix.txt
	touch $@

phoenix: $(PHOENIX_VENV)/.installed

# Fine-tuning (`python -m react_core finetune`) trains in a virtualenv of its own: torch, transformers and peft are
# never needed by `make run`. llama.cpp's LoRA converter (convert_lora_to_gguf.py, its conversion package and gguf-py)
# comes from the sdist of the llama-cpp-python release the app runs, so the adapter suits the llama.cpp that loads it.
TRAIN_VENV := .venv-train
LLAMA_CPP_PYTHON := $(shell sed -n 's/^llama-cpp-python==//p' requirements.txt)

$(TRAIN_VENV)/.installed: requirements-train.txt requirements.txt
	$(PYTHON) -m venv $(TRAIN_VENV)
	$(TRAIN_VENV)/bin/python -m pip install -r requirements-train.txt
	rm -rf $(TRAIN_VENV)/sdist $(TRAIN_VENV)/llama.cpp
	$(TRAIN_VENV)/bin/python -m pip download --no-deps --no-binary :all: -d $(TRAIN_VENV)/sdist \
	  llama-cpp-python==$(LLAMA_CPP_PYTHON)
	mkdir -p $(TRAIN_VENV)/llama.cpp
	tar -xzf $(TRAIN_VENV)/sdist/llama_cpp_python-$(LLAMA_CPP_PYTHON).tar.gz -C $(TRAIN_VENV)/llama.cpp \
	  --strip-components=3 llama_cpp_python-$(LLAMA_CPP_PYTHON)/vendor/llama.cpp/convert_lora_to_gguf.py \
	  llama_cpp_python-$(LLAMA_CPP_PYTHON)/vendor/llama.cpp/conversion \
	  llama_cpp_python-$(LLAMA_CPP_PYTHON)/vendor/llama.cpp/gguf-py
	rm -rf $(TRAIN_VENV)/sdist
	touch $@

finetune-env: $(TRAIN_VENV)/.installed

lint: install-dev
	$(BIN)/ruff check .

test: install-dev chromium postgresql curl phoenix finetune-env
	$(BIN)/ruff check .
	$(BIN)/python -m compileall -q -j 2 react_core ui pages app.py bench
	$(BIN)/python -m pytest $(PARALLEL) -m "not model or model_server"
	$(BIN)/python -m pytest -m "model and not model_server"

# The inner loop: everything but the on-device model, the real browser and Phoenix (none of them needed).
test-quick: install-dev postgresql curl
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q $(QUICK_PARALLEL) -m "$(QUICK)"

bench: install-dev
	@set -e; for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b; done

clean:
	rm -rf $(VENV) $(PHOENIX_VENV) $(TRAIN_VENV) .pytest_cache .ruff_cache .hypothesis
