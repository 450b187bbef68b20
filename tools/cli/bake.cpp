// drape bake: a cloth's motion over a clip (or a sway of the root) into a .glb (drape::convert).
#include <iostream>

#include "commands.h"
#include "drape/convert/bake.h"
#include "drape/io/file.h"
#include "drape/convert/bake_runtime.h"

namespace drape::cli {

void register_bake(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto* cmd = app.add_subcommand(
        "bake",
        "Run the cloth (a .drcloth from drape cloth) over a clip of the model (a .glb from drape model + drape\n"
        "animation), or over a procedural sway of the root, and write its motion into the .glb: one sparse\n"
        "morph target per frame on each cloth mesh and a weights channel on the clip. Blender and Godot play it.");
    struct Args {
        std::string model, cloth, output, clip;
        bool sway = false, depenetrate = false;
        double rate = 30, start = 0, seconds = 0;
    };
    auto a = std::make_shared<Args>();
    cmd->add_option("model", a->model, "The model .glb (with its clips)")->required()->check(CLI::ExistingFile);
    cmd->add_option("cloth", a->cloth, "The model's .drcloth")->required()->check(CLI::ExistingFile);
    auto* clip = cmd->add_option("--clip", a->clip, "The clip to bake (glTF animation name, e.g. a000_002000); default: the first");
    cmd->add_flag("--sway", a->sway, "Bake a procedural sway of the root instead of a clip (4 s)")->excludes(clip);
    cmd->add_option("--rate", a->rate, "Frames per second baked (default 30, the games' cloth rate)")->check(CLI::Range(1.0, 240.0));
    cmd->add_option("--start", a->start, "Bake from this time of the clip on (seconds, default 0)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--seconds", a->seconds, "Bake at most this long a stretch of the clip (default: to its end)")->check(CLI::NonNegativeNumber);
    cmd->add_flag("--depenetrate", a->depenetrate,
                  "Move particles left inside a collidable after a step out to its surface (the runtime's\n"
                  "DRAPE_INSTANCE_DEPENETRATE: not the game's arithmetic, off by default)");
    cmd->add_option("-o,--output", a->output, "The baked .glb")->required();
    cmd->callback([a, &global, &exit_code] {
        exit_code = k_exit_input;
        auto glb = read_file(a->model);
        if (!glb) return void(std::cerr << "error: " << glb.error().to_string() << "\n");
        auto bytes = read_file(a->cloth);
        if (!bytes) return void(std::cerr << "error: " << bytes.error().to_string() << "\n");
        bake::BakeOptions o;
        o.clip = a->clip;
        o.sway = a->sway;
        o.rate = a->rate;
        o.start_seconds = a->start;
        o.max_seconds = a->seconds;
        o.depenetrate = a->depenetrate;
        bake::BakeReport rep;
        auto out = bake::bake_with_runtime(*glb, *bytes, o, &rep);
        if (!out) return void(std::cerr << "error: " << out.error().to_string() << "\n");
        if (auto w = write_file(a->output, *out); !w) return void(std::cerr << "error: " << w.error().to_string() << "\n");
        if (!global.quiet) {
            std::cout << "wrote " << a->output << " (" << out->size() << " B): " << rep.frames << " frames of " << rep.animation << " at " << o.rate
                      << " Hz on";
            for (const auto& m : rep.meshes) std::cout << " " << m;
            std::cout << "; " << rep.write.stored_vertices << " vertex offsets, +" << rep.write.bytes_added << " B, cloth up to "
                      << rep.max_offset << " m off its skinned place";
            if (!rep.driven_bones.empty()) {
                std::cout << "; bones the cloth drives, keyed as channels:";
                for (const auto& b : rep.driven_bones) std::cout << " " << b;
            }
            std::cout << "\n";
        }
        exit_code = k_exit_ok;
    });
}

}  // namespace drape::cli
