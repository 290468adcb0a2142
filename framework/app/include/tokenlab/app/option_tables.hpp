// File: option_tables.hpp
// The one declaration of every option of every request (requests.hpp): the CLI
// builds its --help and parser from these tables, the Python module its keyword
// arguments and signatures. An option added here appears in both.
#pragma once

#include <map>
#include <string>

#include "tokenlab/app/option_table.hpp"
#include "tokenlab/app/requests.hpp"

namespace tokenlab::app {

const OptionTable<PipelineOptions>& pipeline_table();
/// --corpus and the pipeline.
const OptionTable<CountRequest>& count_table();
/// train's options but -o (the CLI writes a file; Python returns the tokenizer).
const OptionTable<TrainRequest>& train_table();
/// compare's options: --vocab-size and what compare and sweep share.
const OptionTable<CompareRequest>& compare_table();
/// sweep's options: --vocab-sizes and what compare and sweep share.
const OptionTable<SweepRequest>& sweep_table();
/// export's --format, --approximate and --dropout.
const OptionTable<ExportRequest>& export_table();

/// Every option's Python keyword, by its CLI name, over all tables: how a
/// message written for the command line is reworded for Python.
std::map<std::string, std::string> python_keywords();

}  // namespace tokenlab::app
