# CAP Studio — set-up and everyday commands.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install install-llm browser app test bench data

$(VENV)/.created:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	touch $@

$(VENV)/.installed: $(VENV)/.created requirements.txt pyproject.toml
	$(BIN)/pip install -r requirements.txt
	$(BIN)/pip install --no-deps -e .
	touch $@

install: $(VENV)/.installed

# The optional real small model. llama-cpp-python has no CPU wheel on PyPI and compiles from
# source: build only what the text-only small-model path needs (the CPU backend, no tests,
# examples, server, tools, multimodal mtmd/llava library, BLAS/OpenMP/CUDA; portable code, no
# -march=native so the wheel runs on any x86-64) with every core. pip caches the built wheel,
# so the compile happens once per machine (pip's cache is keyed by the source, not by these flags).
# llama-cpp-python's CMakeLists forces LLAMA_BUILD_COMMON on: llama.cpp's common/ helpers and
# cpp-httplib, 57 of the 127 objects, which the Python package never loads; a CMake project include
# (run after each project() call, so after that force) switches them off again.
LLAMA_NO_COMMON := $(abspath $(VENV))/llama-no-common.cmake
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_BLAS=OFF -DGGML_OPENMP=OFF -DGGML_CUDA=OFF -DGGML_METAL=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_TOOLS=OFF \
	-DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF -DCMAKE_PROJECT_INCLUDE=$(LLAMA_NO_COMMON)
NPROC := $(shell nproc 2>/dev/null || echo 2)

$(LLAMA_NO_COMMON): $(VENV)/.created
	printf 'set(LLAMA_BUILD_COMMON OFF CACHE BOOL "" FORCE)\n' > $@

# The compile makes a wheel in pip's own isolated build environment and installs nothing, so it can
# run beside the base install (`make test` runs the two side by side); the install then takes it.
LLAMA_REQ := $(shell grep -i '^llama-cpp-python' requirements-llm.txt)
$(VENV)/.llama-wheel: $(VENV)/.created requirements-llm.txt $(LLAMA_NO_COMMON)
	CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" CMAKE_BUILD_PARALLEL_LEVEL=$(NPROC) \
		$(BIN)/pip wheel --no-deps --wheel-dir $(VENV)/wheels "$(LLAMA_REQ)"
	touch $@

$(VENV)/.installed-llm: $(VENV)/.installed $(VENV)/.llama-wheel requirements-llm.txt
	$(BIN)/pip install --find-links $(VENV)/wheels -r requirements-llm.txt
	touch $@

install-llm: $(VENV)/.installed-llm

# Debian's Chromium, driven by Playwright in the browser smoke test.
browser:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# Install and start the dashboard on the embedded default data (localhost only).
app: install
	$(BIN)/streamlit run app.py --server.address 127.0.0.1

# Install everything (the optional small model included) and run the whole test suite.
test:
	$(MAKE) -j2 $(VENV)/.installed $(VENV)/.llama-wheel
	$(MAKE) install-llm browser
	$(BIN)/python -m pytest -q

# Every target of issue 13 with its figure, same-run baseline ratio, peak memory and met / not met.
# BENCH_ARGS=--quick skips the 100M out-of-core run and the 10M baseline (minutes on 2 cores).
bench: install
	$(BIN)/python bench/run_all.py $(BENCH_ARGS)

# Rebuild data/ from the public data in ../shared/data.
data: install
	$(BIN)/python -m cap_core build-default --shared ../shared --out data
