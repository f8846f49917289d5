# tirxc developer tasks. `make demo` and `make test` are the two set-up commands
# of a fresh clone (README); both create the virtual environment on first use.
# Transpiling needs only the package (.installed); the test targets add the test
# extras, CuPy among them (.installed-test).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TIRXC := $(BIN)/tirxc
SAMPLES := $(wildcard samples/*.tx)
BUILD := build
CUDA_OUT := $(patsubst samples/%.tx,$(BUILD)/%.cu,$(SAMPLES))
LAUNCHERS := $(patsubst samples/%.tx,$(BUILD)/%.py,$(SAMPLES))

.PHONY: demo samples test golden-check update-golden bench bench-gpu docs clean cmake-example

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(BIN)/.installed-test: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

# Transpile every sample into build/ (the main job).
demo: samples
	@echo "transpiled $(words $(SAMPLES)) samples into $(BUILD)/"

samples: $(CUDA_OUT) $(LAUNCHERS)

# One rule makes both outputs of a sample; only stale files are rebuilt and
# writes are atomic, so `make -j` is safe.
$(BUILD)/%.cu $(BUILD)/%.py: samples/%.tx $(BIN)/.installed | $(BUILD)
	$(TIRXC) $< -o $(BUILD)/$*.cu --launcher $(BUILD)/$*.py

$(BUILD):
	mkdir -p $@

# The whole suite on every core (pytest-xdist; `loadfile` keeps a module on one worker, so a
# module-scoped batch fixture -- a set of nvcc compiles, of host runs -- is built once; the files
# go out slowest first, in tests/conftest.py's order, which `--no-loadscope-reorder` keeps:
# tests/schedule.py). nvcc and the host runs' g++ results are cached by content under
# build/test-cache (tests/build_cache.py), so a rerun compiles only what changed.
test: $(BIN)/.installed-test
	$(BIN)/python -m pytest -q -n auto --dist loadfile --no-loadscope-reorder

# The C++ host interface's CMake example (docs/cpp.md): tirxc at build time, nvcc, a static
# library and a C++ test program (which skips its launches without a GPU). Needs cmake and nvcc.
cmake-example: $(BIN)/.installed
	cmake -S docs/examples/cmake -B $(BUILD)/cmake-example -DTIRXC_EXECUTABLE=$(CURDIR)/$(TIRXC)
	cmake --build $(BUILD)/cmake-example
	$(BUILD)/cmake-example/example

# Regenerate every sample's CUDA and diff it against the reviewed golden files.
golden-check: $(BIN)/.installed-test
	$(BIN)/python -m pytest -q tests/emit/test_golden.py

update-golden: $(BIN)/.installed-test
	$(BIN)/python -m pytest -q tests/emit/test_golden.py --update-golden

# Generated documentation: the error codes, and the tables of docs/user-guide.md
# (transpiled from docs/constructs/*.tx) and docs/comparison.md (bench/results/*.json).
docs: $(BIN)/.installed
	$(BIN)/python -m transpiler.diag.codes docs/errors.md
	$(BIN)/python docs/gen_docs.py

# Transpile speed against the reference implementation (CPU; bench/transpile.py
# installs the reference and matplotlib into bench/.venv-ref, and tirxc from a
# wheel of this tree into bench/out/venv-tirxc, on first use).
bench: $(BIN)/.installed
	$(BIN)/python bench/transpile.py

# Generated-kernel speed: run on the GPU machine (CuPy there; tirxc is used from
# the source tree, lark from the carried .whl/ if it is not installed).
bench-gpu:
	@python3 -c "import lark" 2>/dev/null || python3 -m pip install -q --no-index --no-deps --target /tmp/tirxc-bench-site .whl/lark-*.whl
	PYTHONPATH=.:/tmp/tirxc-bench-site python3 bench/gpu.py --out bench/results/gpu.json

clean:
	rm -rf $(BUILD)
