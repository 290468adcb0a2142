#include "hf/streamed_lists.hpp"

#include "hf/list_prefetch.hpp"

namespace tokenlab::hf_detail {
namespace {

// Merges handed to the prefetch at a time: few enough locks, soon enough.
constexpr std::size_t kPublishEvery = 4096;

}  // namespace

void ListDivertingHandler::push_merge(std::string_view first, std::string_view second) {
  if (prefetch_ != nullptr && lists_.merges.size() == lists_.merges.capacity()) {
    prefetch_->merges_abandoned();  // the list is about to move
    prefetch_ = nullptr;
  }
  lists_.merges.emplace_back(first, second);
  if (prefetch_ != nullptr && lists_.merges.size() % kPublishEvery == 0)
    prefetch_->merges_published(lists_.merges.data(), lists_.merges.size());
}

bool ListDivertingHandler::opens_model_member(std::string_view name) const noexcept {
  return depth_ == 2 && model_is_object_ && model_key_ == name;
}

void ListDivertingHandler::note_value(bool numeric, bool opens_array) {
  if (!scores_open_) return;
  if (depth_ == 3) {  // an entry: an array, or no Unigram vocabulary
    entry_values_ = 0;
    if (!opens_array) scores_valid_ = false;
  } else if (depth_ == 4) {  // a value of an entry
    if (entry_values_ == 1) {
      if (numeric && !number_text_.empty())
        lists_.score_digits.push_back(number_text_);
      else
        scores_valid_ = false;
    }
    ++entry_values_;
  }
}

void ListDivertingHandler::note_end_array() {
  if (!scores_open_) return;
  if (depth_ == 3 && entry_values_ != 2) scores_valid_ = false;  // an entry closed
  if (depth_ == 2) {                                             // the vocabulary closed
    scores_open_ = false;
    if (!scores_valid_) lists_.score_digits = {};
  }
}

void ListDivertingHandler::give_up() {
  if (mode_ == Mode::vocab) {
    document_.StartObject();
    for (const TokenTable::Row& row : lists_.vocab) {
      document_.Key(row.token.data(), static_cast<rapidjson::SizeType>(row.token.size()), false);
      document_.Uint(row.id);
    }
    if (has_pending_name_)
      document_.Key(pending_name_.data(), static_cast<rapidjson::SizeType>(pending_name_.size()),
                    false);
    has_pending_name_ = false;
    lists_.vocab = {};
  } else if (mode_ == Mode::merges) {
    if (prefetch_ != nullptr) prefetch_->merges_abandoned();
    prefetch_ = nullptr;
    const auto string = [&](std::string_view s) {
      document_.String(s.data(), static_cast<rapidjson::SizeType>(s.size()), false);
    };
    document_.StartArray();
    for (const auto& [first, second] : lists_.merges) {
      if (second.data() == nullptr) {
        string(first);
      } else {
        document_.StartArray();
        string(first);
        string(second);
        document_.EndArray(2);
      }
    }
    if (pair_strings_ >= 0) {
      document_.StartArray();
      for (int i = 0; i < pair_strings_; ++i) string(pair_[i]);
    }
    pair_strings_ = -1;
    lists_.merges = {};
  }
  mode_ = Mode::forward;
}

bool ListDivertingHandler::Uint(unsigned u) {
  if (mode_ == Mode::vocab && has_pending_name_ && u <= TokenTable::kMaxId) {
    lists_.vocab.push_back({static_cast<TokenId>(u), pending_name_});
    has_pending_name_ = false;
    return true;
  }
  give_up();
  note_value(true, false);
  return document_.Uint(u);
}

bool ListDivertingHandler::String(const char* s, rapidjson::SizeType n, bool copy) {
  if (mode_ == Mode::merges && !copy) {
    if (depth_ == 3) {
      push_merge(std::string_view(s, n), StreamedLists::kUnsplit);
      return true;
    }
    if (depth_ == 4 && pair_strings_ >= 0 && pair_strings_ < 2) {
      pair_[pair_strings_++] = {s, n};
      return true;
    }
  }
  give_up();
  note_value(false, false);
  return document_.String(s, n, copy);
}

bool ListDivertingHandler::Key(const char* s, rapidjson::SizeType n, bool copy) {
  if (mode_ == Mode::vocab && !copy && !has_pending_name_) {
    pending_name_ = {s, n};
    has_pending_name_ = true;
    return true;
  }
  give_up();
  if (depth_ == 1) root_key_.assign(s, n);
  if (depth_ == 2) model_key_.assign(s, n);
  return document_.Key(s, n, copy);
}

bool ListDivertingHandler::StartObject() {
  if (!nesting_allowed()) return false;
  if (mode_ == Mode::forward && !vocab_started_ && opens_model_member("vocab")) {
    mode_ = Mode::vocab;
    vocab_started_ = true;
    ++depth_;
    return true;
  }
  give_up();
  note_value(false, false);
  if (depth_ == 0) root_is_object_ = true;
  if (depth_ == 1) model_is_object_ = root_is_object_ && root_key_ == "model";
  ++depth_;
  return document_.StartObject();
}

bool ListDivertingHandler::EndObject(rapidjson::SizeType members) {
  --depth_;
  if (mode_ == Mode::vocab && depth_ == 2) {
    lists_.has_vocab = true;
    mode_ = Mode::forward;
    if (prefetch_ != nullptr) prefetch_->vocab_closed(lists_.vocab);
    document_.StartObject();  // the vocab's place in the document, empty
    return document_.EndObject(0);
  }
  give_up();
  if (depth_ == 1) model_is_object_ = false;
  return document_.EndObject(members);
}

bool ListDivertingHandler::StartArray() {
  if (!nesting_allowed()) return false;
  if (mode_ == Mode::merges && depth_ == 3 && pair_strings_ < 0) {
    pair_strings_ = 0;
    ++depth_;
    return true;
  }
  if (mode_ == Mode::forward && !merges_started_ && opens_model_member("merges")) {
    mode_ = Mode::merges;
    merges_started_ = true;
    ++depth_;
    return true;
  }
  give_up();
  if (!scores_started_ && opens_model_member("vocab")) {
    scores_started_ = scores_open_ = scores_valid_ = true;
  } else {
    note_value(false, true);
  }
  if (depth_ == 1) model_is_object_ = false;
  ++depth_;
  return document_.StartArray();
}

bool ListDivertingHandler::EndArray(rapidjson::SizeType elements) {
  --depth_;
  if (mode_ == Mode::merges) {
    if (depth_ == 3 && pair_strings_ == 2) {
      push_merge(pair_[0], pair_[1]);
      pair_strings_ = -1;
      return true;
    }
    if (depth_ == 2 && pair_strings_ < 0) {
      lists_.has_merges = true;
      if (prefetch_ != nullptr)
        prefetch_->merges_closed(lists_.merges.data(), lists_.merges.size());
      mode_ = Mode::forward;
      document_.StartArray();  // the merges' place in the document, empty
      return document_.EndArray(0);
    }
  }
  give_up();
  note_end_array();
  if (depth_ == 1) model_is_object_ = false;
  return document_.EndArray(elements);
}

}  // namespace tokenlab::hf_detail
