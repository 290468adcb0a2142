// tokenlab.audit() and tokenlab.agreement(): compare --audit and --agreement on
// loaded tokenizers, and the CompareResult properties that show them.
#pragma once

#include <pybind11/pybind11.h>

#include "tokenlab/tokenizer_agreement.hpp"
#include "tokenlab/vocabulary_audit.hpp"

namespace tokenlab::python {

/// Registers tokenlab._tokenlab.audit and agreement.
void bind_vocabulary(pybind11::module_& m);

/// The figures as dicts (keys as the report columns, snake_case; matrices as
/// lists of rows), for tokenlab.audit and CompareResult.agreement_matrices.
pybind11::dict audit_as_dict(const VocabularyAudit& audit);
pybind11::dict agreement_as_dict(const TokenizerAgreement& matrix);

}  // namespace tokenlab::python
