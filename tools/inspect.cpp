#include "commands.h"

namespace drape::cli {
void register_inspect(CLI::App& app, GlobalOptions&, int&) { app.add_subcommand("inspect", "Identify files"); }
}
