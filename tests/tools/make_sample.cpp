// drape_make_sample OUT_DIR: writes the synthetic sample game folder that `make demo` converts.
#include <cstdio>

#include "sample_game.h"

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: drape_make_sample OUT_DIR\n");
        return 2;
    }
    auto r = drape::test::write_sample_game(argv[1]);
    if (!r) {
        std::fprintf(stderr, "error: %s\n", r.error().to_string().c_str());
        return 1;
    }
    for (auto& f : *r) std::printf("wrote %s/%s\n", argv[1], f.c_str());
    return 0;
}
