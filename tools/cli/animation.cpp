// drape animation: Havok clips (an .anibnd or one .hkx) to glTF animations in a .glb.
#include <algorithm>
#include <iostream>
#include <memory>

#include "commands.h"
#include "drape/anim/anibnd.h"
#include "drape/exporters/animation_glb.h"
#include "drape/io/file.h"

namespace drape::cli {

namespace {

struct AnimationArgs {
    std::string input, skeleton, model, output, mirror = "auto";
    std::vector<std::string> clips;
    bool no_root_motion = false, keep_additive = false;
    float rate = 0;
};

int run_animation(const AnimationArgs& a, const GlobalOptions& g) {
    dcx::DecodeOptions dopt;
    dopt.oodle_path = g.oodle_path;
    dopt.jobs = g.jobs;
    auto bytes = read_file(a.input);
    if (!bytes) {
        std::cerr << "drape animation: " << bytes.error().to_string() << "\n";
        return k_exit_input;
    }
    auto set = anim::read_clip_set(*bytes, a.input, dopt);
    if (!set) {
        std::cerr << "drape animation: " << set.error().to_string() << "\n";
        return k_exit_input;
    }
    int code = k_exit_ok;
    // A skeleton member that did not read is reported once, below, where it explains the missing skeleton.
    const anim::SkeletonFailure own_skeleton = set->skeletons.empty() && a.skeleton.empty() ? anim::skeleton_failure(*set) : anim::SkeletonFailure{};
    // Never lose a clip silently: each one that does not decode is named with its reason, the
    // summary counts them and the exit code is 1.
    for (const auto& f : set->failures) {
        code = k_exit_input;
        if (&f == own_skeleton.failure) continue;
        std::cerr << "drape animation: " << (f.clip.empty() ? "not read: " : "clip " + f.clip + " not decoded: ") << f.error.to_string() << "\n";
    }
    // The skeleton: --skeleton (an .hkx, .anibnd or any binder holding one), else the input's own.
    std::vector<havok::Skeleton> skeletons = set->skeletons;
    if (!a.skeleton.empty()) {
        auto sb = read_file(a.skeleton);
        if (!sb) {
            std::cerr << "drape animation: " << sb.error().to_string() << "\n";
            return k_exit_input;
        }
        auto ss = anim::read_clip_set(*sb, a.skeleton, dopt);
        if (!ss) {
            std::cerr << "drape animation: " << ss.error().to_string() << "\n";
            return k_exit_input;
        }
        skeletons = ss->skeletons;
    }
    if (skeletons.empty() && own_skeleton.failure) {
        if (own_skeleton.unsupported_sdk)
            std::cerr << "drape animation: " << a.input << " holds a skeleton of an unsupported Havok SDK, which drape cannot read ("
                      << own_skeleton.failure->error.to_string() << "); pass --skeleton with a skeleton of a supported game\n";
        else
            std::cerr << "drape animation: " << a.input << " holds a skeleton that did not read (" << own_skeleton.failure->error.to_string()
                      << "); pass --skeleton\n";
        return k_exit_input;
    }
    // A clip-only binder (c0000_a00_lo.anibnd.dcx) takes the skeleton of the main one beside it.
    if (skeletons.empty() && a.skeleton.empty()) {
        if (auto main = anim::main_anibnd_beside(a.input)) {
            auto mb = read_file(*main);
            auto ms = mb ? anim::read_clip_set(*mb, main->string(), dopt) : Result<anim::ClipSet>(mb.error());
            if (ms && !ms->skeletons.empty()) {
                skeletons = ms->skeletons;
                if (!g.quiet)
                    std::cerr << "drape animation: " << a.input << " holds no skeleton; using " << skeletons[0].name << " of " << main->string()
                              << " beside it\n";
            }
        }
    }
    if (skeletons.empty()) {
        std::cerr << "drape animation: no skeleton: " << (a.skeleton.empty() ? a.input + " holds none; pass --skeleton" : a.skeleton + " holds none") << "\n";
        return k_exit_input;
    }
    std::vector<anim::Clip> clips;
    for (auto& c : set->clips)
        if (a.clips.empty() || std::find(a.clips.begin(), a.clips.end(), c.name) != a.clips.end()) clips.push_back(std::move(c));
    if (clips.empty()) {
        std::cerr << "drape animation: no clip" << (a.clips.empty() ? " in " + a.input : " of those names") << "\n";
        return k_exit_input;
    }
    size_t undecoded = 0;  // track parts the exporter writes in the reference pose (each warned of)
    for (const auto& c : clips) undecoded += c.undecoded.size();
    exporters::AnimationGlbOptions o;
    o.root_motion = !a.no_root_motion;
    o.sample_rate = a.rate;
    o.bake_additive = !a.keep_additive;
    o.mirror = a.mirror == "x" ? exporters::Mirror::x : a.mirror == "z" ? exporters::Mirror::z : exporters::Mirror::detect;
    exporters::AnimationGlbReport report;
    Result<std::vector<uint8_t>> out = make_error("unset");
    if (!a.model.empty()) {
        auto model = read_file(a.model);
        if (!model) {
            std::cerr << "drape animation: " << model.error().to_string() << "\n";
            return k_exit_input;
        }
        out = exporters::add_animations_to_glb(*model, skeletons[0], clips, o, &report);
    } else {
        if (o.mirror == exporters::Mirror::detect) o.mirror = exporters::Mirror::z;
        o.root_name = anim::clip_name_from_path(a.input) + "_root";
        out = exporters::animation_glb(skeletons[0], clips, o, &report);
    }
    if (!out) {
        std::cerr << "drape animation: " << out.error().to_string() << "\n";
        return k_exit_input;
    }
    if (auto w = write_file(a.output, *out); !w) {
        std::cerr << "drape animation: " << w.error().to_string() << "\n";
        return k_exit_input;
    }
    if (!g.quiet) {
        for (const auto& w : report.warnings) std::cerr << "drape animation: warning: " << w << "\n";
        std::cout << a.output << ": " << report.animations << " animations, " << report.channels << " channels on skeleton "
                  << skeletons[0].name << " (" << skeletons[0].bone_names.size() << " bones), mirror " << exporters::mirror_name(report.mirror);
        if (!set->failures.empty()) std::cout << "; " << set->failures.size() << " not decoded (listed above)";
        if (undecoded) std::cout << "; " << undecoded << " track part" << (undecoded == 1 ? "" : "s") << " in the reference pose (listed above)";
        std::cout << "\n";
    }
    return code;
}

}  // namespace

void register_animation(CLI::App& app, GlobalOptions& global, int& exit_code) {
    auto args = std::make_shared<AnimationArgs>();
    CLI::App* sub = app.add_subcommand("animation", "Havok clips (.anibnd[.dcx] or .hkx) to glTF animations in a .glb");
    sub->add_option("input", args->input, "Animation binder or Havok file")->required()->check(CLI::ExistingFile);
    sub->add_option("--skeleton", args->skeleton, "Skeleton .hkx (or a binder holding one); default: the input's own")->check(CLI::ExistingFile);
    sub->add_option("--model", args->model, "Add the clips to this model .glb (bones matched by name)")->check(CLI::ExistingFile);
    sub->add_option("-o,--output", args->output, "Output .glb")->required();
    sub->add_option("--clip", args->clips, "Only these clips (by name, e.g. a000_003000); repeatable");
    sub->add_flag("--no-root-motion", args->no_root_motion, "Leave the root motion (hkaDefaultAnimatedReferenceFrame) out");
    sub->add_option("--rate", args->rate, "Resample at this rate in Hz, up to 1000 (default: key the stored frames exactly)")->check(CLI::Range(0.0, 1000.0));
    sub->add_flag("--keep-additive", args->keep_additive, "Write additive clips as stored deltas instead of baking them onto the reference pose");
    sub->add_option("--mirror", args->mirror, "Axis negated from game to glTF: z (default, as drape model writes), x, or auto (match --model's bones)")
        ->check(CLI::IsMember({"x", "z", "auto"}));
    sub->callback([args, &global, &exit_code] { exit_code = run_animation(*args, global); });
}

}  // namespace drape::cli
