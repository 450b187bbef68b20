// drape: convert the characters of Dark Souls III, Sekiro and Elden Ring to glTF + drape cloth.
#include <cstdlib>
#include <iostream>

#include "commands.h"

int main(int argc, char** argv) {
    CLI::App app{
        "drape: converts FromSoftware characters (FLVER2 models, Havok skeletons, animations and cloth,\n"
        "inside DCX/BND4 containers) to glTF and the open drape cloth format."};
    app.require_subcommand(1);
    app.set_version_flag("--version", "drape 0.1.0");
    drape::cli::GlobalOptions global;
    if (const char* env = std::getenv("DRAPE_OODLE")) global.oodle_path = env;
    app.add_option("--oodle", global.oodle_path,
                   "Path of the game's Oodle library (oo2core_6_win64.dll or a native build) to decode KRAK\n"
                   "with it instead of drape's own Kraken decoder (also: DRAPE_OODLE)");
    app.add_option("-j,--jobs", global.jobs, "Worker threads (0 = every core)")->default_val(0);
    app.add_flag("-q,--quiet", global.quiet, "Print only errors");
    int exit_code = drape::cli::k_exit_ok;
    drape::cli::register_inspect(app, global, exit_code);
    drape::cli::register_check(app, global, exit_code);
    drape::cli::register_model(app, global, exit_code);
    drape::cli::register_cloth(app, global, exit_code);
    drape::cli::register_animation(app, global, exit_code);
    drape::cli::register_simulate(app, global, exit_code);
    drape::cli::register_bench(app, global, exit_code);
    drape::cli::register_unpack(app, global, exit_code);
    drape::cli::register_convert(app, global, exit_code);
    drape::cli::register_bake(app, global, exit_code);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int r = app.exit(e);
        return r == 0 ? 0 : drape::cli::k_exit_usage;
    }
    return exit_code;
}
