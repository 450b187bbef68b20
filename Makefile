# drape: the two commands are `make demo` and `make test`. Both install what is missing first.
#
#   make deps    install the Debian 12 packages building and running drape need (apt-get, as root)
#   make deps-build  also what compiling the tests and benchmarks needs (doctest, Google Benchmark, Bullet)
#   make deps-test  also what running the tests needs (clang, Pillow, Blender, Godot 3, Node.js + the glTF validator)
#   make build   release build (g++) of drape, its tests and benchmarks in build/release (needs only make deps-build)
#   make test    release build (g++) + ASan/UBSan build (clang), every test in both
#   make demo    build the drape CLI, then run the main job on samples/game into out/ (needs only make deps)
#   make fuzz    build the libFuzzer targets (clang) in build/fuzz; FUZZ_TIME=60 make fuzz-run runs each in
#                turn, make fuzz-long FUZZ_TIME=3600 all of them one process per core (random seeds,
#                grown corpora in build/fuzz/corpus/), make fuzz-minimize merges what they grew into
#                tests/data/fuzz_corpus/ (committed: CI's smoke replays it); see tests/fuzz/fuzz.sh
#   make bench   build and run the Google Benchmark suite (release)
#   make blender-addon  the Blender add-on that plays the cloth live: build/blender/drape_cloth.zip

SHELL := /bin/bash
JOBS ?= $(shell nproc)
BUILD_RELEASE := build/release
BUILD_ASAN := build/asan
BUILD_FUZZ := build/fuzz
BUILD_BENCH := build/bench
FUZZ_TIME ?= 60
# ccache, when installed, only speeds up rebuilds (also across checkouts: paths are made relative).
CCACHE := $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
  LAUNCHER := -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR := $(CURDIR)
endif

# What building and running drape needs: `make deps` (and `make demo`) install only these.
PACKAGES := g++ cmake ninja-build pkg-config zlib1g-dev libzstd-dev libdeflate-dev \
	libtinygltf-dev nlohmann-json3-dev libflatbuffers-dev flatbuffers-compiler libcli11-dev libassimp-dev \
	libssl-dev
# What compiling the tests and the benchmarks needs on top (`make deps-build`, run by make build and
# make bench): doctest, Google Benchmark and Bullet (the benchmarks' side-by-side cloth solver).
BUILD_TEST_PACKAGES := doctest-dev libbenchmark-dev libbullet-dev
# What running the tests needs on top (`make deps-test`, run by make test/test-release/test-asan/fuzz):
# clang and its sanitizer runtimes (the ASan/UBSan build and the three-compiler runtime test),
# Python with Pillow, and the external clients the model and animation tests import the outputs
# into: Blender (its glTF importer needs numpy), Godot 3 (headless), Node.js for the Khronos glTF
# validator (npm, below).
TEST_PACKAGES := clang libclang-rt-14-dev python3 python3-pil \
	blender python3-numpy godot3-server nodejs

.PHONY: deps deps-build deps-test deps-extra blender-addon build test test-release test-asan demo fuzz fuzz-run fuzz-long fuzz-minimize bench clean

# $(call apt_install,PACKAGES): installs the missing ones (as root), else names them and fails.
define apt_install
	@missing=""; for p in $(1); do \
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
endef

deps:
	$(call apt_install,$(PACKAGES))

# Each set builds on the one before, so even `make -j` runs one apt-get at a time.
deps-build: deps
	$(call apt_install,$(BUILD_TEST_PACKAGES))

deps-test: deps-build
	$(call apt_install,$(TEST_PACKAGES))
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

# The release build of the tests also builds bench/ (not run: `make bench` runs it), so the
# benchmark suite cannot stop compiling unnoticed.
$(BUILD_RELEASE)/build.ninja:
	cmake -S . -B $(BUILD_RELEASE) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc \
	  -DDRAPE_BUILD_BENCH=ON $(LAUNCHER)

$(BUILD_ASAN)/build.ninja:
	cmake -S . -B $(BUILD_ASAN) -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
	  -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang -DDRAPE_SANITIZE=ON $(LAUNCHER)

build: deps-build $(BUILD_RELEASE)/build.ninja
	ninja -C $(BUILD_RELEASE) -j $(JOBS)

# The game files the corpus tests read ($DRAPE_CORPUS, else ../shared/corpus beside the checkout).
# Without them the tests labelled corpus are left out, and the run says how many.
CORPUS := $(or $(DRAPE_CORPUS),$(abspath ../shared/corpus))
HAVE_CORPUS := $(wildcard $(CORPUS)/MANIFEST.tsv)
left_out = $(if $(HAVE_CORPUS),,@echo "make $@: no corpus at $(CORPUS) (set DRAPE_CORPUS): left out $$(cd $(1) && ctest -N -L corpus | sed -n 's/Total Tests: //p') tests labelled corpus")

test-release: deps-test build
	cd $(BUILD_RELEASE) && DRAPE_GLTF_VALIDATOR=$(CURDIR)/$(VALIDATOR) ctest -j $(JOBS) --output-on-failure $(if $(HAVE_CORPUS),,-LE corpus)
	$(call left_out,$(BUILD_RELEASE))

test-asan: deps-test $(BUILD_ASAN)/build.ninja
	ninja -C $(BUILD_ASAN) -j $(JOBS)
	cd $(BUILD_ASAN) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  DRAPE_SKIP_EXTERNAL=1 ctest -j $(JOBS) --output-on-failure -LE '$(if $(HAVE_CORPUS),external,corpus|external)'
	@echo "make $@: the tests labelled external (Blender, Godot, the validator) run in the release build only"
	$(call left_out,$(BUILD_ASAN))

# Both builds; ctest prints its summary line after each.
test: test-release test-asan

# The main job on the sample game (samples/game, committed, laid out as a game folder): `drape
# convert --bake` the whole folder (glTF with textures and clips, .drcloth, reports,
# out/summary.json, and the .glb with the cloth's motion baked over the clip). Builds only the
# drape CLI (build/demo, no tests): needs only `make deps`.
BUILD_DEMO := build/demo
DRAPE := $(BUILD_DEMO)/tools/drape
$(BUILD_DEMO)/build.ninja:
	cmake -S . -B $(BUILD_DEMO) -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DCMAKE_C_COMPILER=gcc \
	  -DDRAPE_BUILD_TESTS=OFF $(LAUNCHER) >/dev/null

# The Blender add-on (samples/blender): build/blender/drape_cloth.zip, installable through Blender's
# Preferences > Add-ons > Install.
blender-addon: deps-build $(BUILD_RELEASE)/build.ninja
	ninja -C $(BUILD_RELEASE) -j $(JOBS) drape_blender_addon
	@mkdir -p build/blender && cp $(BUILD_RELEASE)/blender/drape_cloth.zip build/blender/drape_cloth.zip
	@echo "build/blender/drape_cloth.zip"

demo: deps $(BUILD_DEMO)/build.ninja
	ninja -C $(BUILD_DEMO) -j $(JOBS) drape
	@rm -rf out && mkdir -p out
	$(DRAPE) convert samples/game -o out/ --bake
	@test -f out/chr/c9999_baked.glb || { echo "make demo: out/chr/c9999_baked.glb was not written (see out/chr/c9999.report.json)"; exit 1; }
	@echo "open out/chr/c9999_baked.glb (Blender: File > Import > glTF 2.0, then play): the character walks and its cape swings, moved by drape's cloth runtime."

$(BUILD_FUZZ)/build.ninja:
	cmake -S . -B $(BUILD_FUZZ) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
	  -DCMAKE_C_COMPILER=clang -DDRAPE_BUILD_FUZZERS=ON -DDRAPE_BUILD_TESTS=OFF $(LAUNCHER)

fuzz: deps-test $(BUILD_FUZZ)/build.ninja
	ninja -C $(BUILD_FUZZ) -j $(JOBS)

# Every target from its seeds, dictionary and committed corpus (the inputs of its smoke test),
# with a random seed: one at a time (fuzz-run) or one process per core (fuzz-long). Prints per
# target the seconds, executions, coverage and findings (crash inputs in build/fuzz/artifacts/).
# FUZZ_TARGETS="runtime_fuzz flver_fuzz" runs only those.
fuzz-run: fuzz
	sh tests/fuzz/fuzz.sh run $(BUILD_FUZZ) $(FUZZ_TIME) 1 $(FUZZ_TARGETS)

fuzz-long: fuzz
	sh tests/fuzz/fuzz.sh run $(BUILD_FUZZ) $(FUZZ_TIME) $(JOBS) $(FUZZ_TARGETS)

fuzz-minimize: fuzz
	sh tests/fuzz/fuzz.sh minimize $(BUILD_FUZZ) $(FUZZ_TARGETS)

$(BUILD_BENCH)/build.ninja:
	cmake -S . -B $(BUILD_BENCH) -G Ninja -DCMAKE_BUILD_TYPE=Release -DDRAPE_BUILD_BENCH=ON -DDRAPE_BUILD_TESTS=OFF

bench: deps-build $(BUILD_BENCH)/build.ninja
	ninja -C $(BUILD_BENCH) -j $(JOBS) drape_bench
	$(BUILD_BENCH)/bench/drape_bench --benchmark_min_time=0.5

clean:
	rm -rf build out
