# The two entry points of the README: `make demo` and `make test`.
# Each creates or refreshes the local virtual environment and builds the
# engine's Python extension first.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
PIP    := $(VENV)/bin/pip
STAMP  := $(VENV)/.deps-stamp

.PHONY: demo test build venv lint rust-test py-test bench clean browser reproduce fuzz

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip
	$(PIP) install --quiet "maturin>=1.7,<2" "pytest>=8" "ruff>=0.6" "mypy>=1.8" "pyarrow>=14" "matplotlib>=3.8" \
		"duckdb>=1.1" "dask[distributed]>=2024.1" "tqdm>=4.66" "selenium>=4.20" "types-tqdm" "libcachesim>=0.3.5"
	touch $(STAMP)

venv: $(STAMP)

build: $(STAMP)
	$(VENV)/bin/maturin develop --release --quiet

# The demo: the bandwidth table and plot, then the same experiment as a short
# reproduction (experiments/foundation-demo.toml): claims checked, report/index.html.
demo: build
	$(PY) -m prefetchlab.demo
	$(PY) -m prefetchlab.cli reproduce foundation-demo --out report --quiet

# Every experiment under experiments/: sweeps, claims checked, report/index.html.
reproduce: build
	$(PY) -m prefetchlab.cli reproduce

rust-test:
	cargo test --workspace --exclude prefetchlab-py --release

# The report test drives Debian's Chromium headless through its chromedriver; both are
# installed from Debian when missing (never a browser downloaded by a test library).
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || { \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q chromium chromium-driver || \
	  { apt-get update -q && apt-get install -y -q chromium chromium-driver; }; }

py-test: build browser
	$(PY) -m pytest -q

lint: $(STAMP)
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
	$(VENV)/bin/ruff check python tests benches
	$(VENV)/bin/ruff format --check python tests benches
	$(VENV)/bin/mypy

test: rust-test py-test

# Long fuzzing of every crates/prefetchlab/tests/fuzz_*.rs target (make test runs
# each briefly): FUZZ_CASES cases per target from seed FUZZ_SEED; a failure prints
# the input and the command that replays it.
FUZZ_CASES ?= 2000000
FUZZ_SEED  ?= 1
fuzz:
	PREFETCHLAB_FUZZ_CASES=$(FUZZ_CASES) PREFETCHLAB_FUZZ_SEED=$(FUZZ_SEED) \
		cargo test --release -p prefetchlab --test 'fuzz_*' -- --nocapture

bench: build
	$(PY) benches/speed.py
	$(PY) benches/cache_only.py
	$(PY) benches/block_prefetch.py
	$(PY) benches/striping_readahead.py

clean:
	rm -rf target $(VENV)
