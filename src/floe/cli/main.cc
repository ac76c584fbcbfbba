#include "floe/cli/cli_app.h"

int main(int argc, char** argv) { return floe::cli::RunCli(argc, argv); }
