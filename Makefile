# drape: the two commands are `make demo` and `make test`. Both install what is missing first.
#
#   make deps    install the Debian 12 packages the build and tests need (apt-get, as root)
#   make build   release build (g++) in build/release
#   make test    release build (g++) + ASan/UBSan build (clang), every test in both
#   make demo    build, then run the main job on samples/game into out/
#   make fuzz    build the libFuzzer targets (clang) in build/fuzz; FUZZ_TIME=60 make fuzz-run runs each
#   make bench   build and run the Google Benchmark suite (release)

SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD_RELEASE := build/release
BUILD_ASAN := build/asan
BUILD_FUZZ := build/fuzz
BUILD_BENCH := build/bench
FUZZ_TIME ?= 60

# Build and unit tests.
PACKAGES := g++ clang libclang-rt-14-dev cmake ninja-build pkg-config zlib1g-dev libzstd-dev \
	libtinygltf-dev nlohmann-json3-dev libflatbuffers-dev flatbuffers-compiler libcli11-dev doctest-dev \
	libbenchmark-dev libbullet-dev python3 python3-pil
# External clients the model and animation tests import the outputs into: Blender (its glTF
# importer needs numpy), Godot 3 (headless), Node.js for the Khronos glTF validator (npm, below).
PACKAGES += blender python3-numpy godot3-server nodejs

.PHONY: deps build test test-release test-asan demo fuzz fuzz-run bench clean

deps:
	@missing=""; for p in $(PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "make deps: installing$$missing"; \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing >/dev/null || exit 1; \
	  else \
	    echo "make deps: missing packages:$$missing"; \
	    echo "run: sudo apt-get update && sudo apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi
	@$(MAKE) --no-print-directory deps-extra

# npm tools live in the build tree, never in the repository.
VALIDATOR := build/node_tools/node_modules/gltf-validator
deps-extra:
	@if ! command -v npm >/dev/null; then \
	  if [ "$$(id -u)" = "0" ]; then DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null || exit 1; \
	  else echo "make deps: npm is missing: sudo apt-get install -y npm"; exit 1; fi; \
	fi
	@if [ ! -f $(VALIDATOR)/package.json ]; then \
	  echo "make deps: npm install gltf-validator into build/node_tools"; \
	  mkdir -p build/node_tools && npm install --silent --no-audit --no-fund --prefix build/node_tools gltf-validator >/dev/null || exit 1; \
	fi

$(BUILD_RELEASE)/build.ninja:
	cmake -S . -B $(BUILD_RELEASE) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc

$(BUILD_ASAN)/build.ninja:
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
	  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DDRAPE_SANITIZE=ON

build: deps $(BUILD_RELEASE)/build.ninja
	ninja -C $(BUILD_RELEASE) -j $(JOBS)

test-release: build
	cd $(BUILD_RELEASE) && DRAPE_GLTF_VALIDATOR=$(CURDIR)/$(VALIDATOR) ctest -j $(JOBS) --output-on-failure

test-asan: deps $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  DRAPE_SKIP_EXTERNAL=1 ctest -j $(JOBS) --output-on-failure

# Both builds; ctest prints its summary line after each.
test: test-release test-asan

# The main job on the synthetic sample game: identify every file, then `drape convert` the whole
# folder (glTF with textures and clips, .drcloth, reports, out/summary.json).
demo: build
	@rm -rf out samples/game/generated && mkdir -p out
	$(BUILD_RELEASE)/tests/drape_make_sample samples/game/generated
	$(BUILD_RELEASE)/tools/drape inspect $$(find samples/game -type f -not -name '*.md' | sort)
	$(BUILD_RELEASE)/tools/drape convert samples/game -o out/ || echo "make demo: some sample inputs did not convert (out/summary.json says which and why)"
	@echo "out/ holds:"; find out -type f | sort | sed 's/^/  /'

$(BUILD_FUZZ)/build.ninja:
	cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang -DDRAPE_BUILD_FUZZERS=ON -DDRAPE_BUILD_TESTS=OFF

fuzz: deps $(BUILD_FUZZ)/build.ninja
	ninja -C $(BUILD_FUZZ) -j $(JOBS)

fuzz-run: fuzz
	@for f in $(BUILD_FUZZ)/tests/*_fuzz; do \
	  echo "== $$f ($(FUZZ_TIME) s)"; mkdir -p $(BUILD_FUZZ)/corpus/$$(basename $$f); \
	  $$f -max_total_time=$(FUZZ_TIME) -print_final_stats=1 $(BUILD_FUZZ)/corpus/$$(basename $$f) 2>&1 | tail -3 || exit 1; \
	done

$(BUILD_BENCH)/build.ninja:
	cmake -S . -B $(BUILD_BENCH) -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAPE_BUILD_BENCH=ON -DDRAPE_BUILD_TESTS=OFF

bench: deps $(BUILD_BENCH)/build.ninja
	ninja -C $(BUILD_BENCH) -j $(JOBS) drape_bench
	$(BUILD_BENCH)/bench/drape_bench --benchmark_min_time=0.5

clean:
	rm -rf build out samples/game/generated
