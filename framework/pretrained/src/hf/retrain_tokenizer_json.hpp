// retrain_like's tokenizer.json half (retraining.hpp).
#pragma once
#include <functional>
#include <string>

#include "tokenlab/pretrained/retraining.hpp"

namespace tokenlab::hf {

/// content: the bytes of request.like.
RetrainedTokenizer retrain_tokenizer_json(const RetrainingRequest& request, std::string content,
                                          const std::function<void(const std::string&)>& note);

}  // namespace tokenlab::hf
