// A weight file's header as JSON (files/weights_header_json.hpp): nlohmann's SAX parser with a
// handler of our own.
#include "files/weights_header_json.hpp"

#include <cstddef>
#include <set>
#include <utility>
#include <vector>

namespace wai::weights_header {
namespace {

using Json = nlohmann::json;

// Thrown from inside the JSON parser, so that parsing stops before the offending value is built.
struct NestedTooDeep {};
struct DuplicateName {
    std::string name;
    int depth;  // 1: a name of the header itself (a tensor's, or __metadata__)
};

// The header's JSON, built by a SAX handler of our own that makes two checks as the parser goes: no
// list or object opens more than max_header_depth levels deep (a deeper one would be built, copied
// and destroyed recursively: 60,000 levels crashed the reader with a stack overflow), and no name is
// given twice in one object (the parser would keep the last one and drop the other without a word).
// Not Json::parse with a callback, which made the same checks: nlohmann's callback parser scans the
// enclosing object for a discarded value at the end of every object, so a header of N entries took
// N^2 steps (200,000 empty tensors: over a minute). Here each value is put in place once.
class HeaderBuilder final : public Json::json_sax_t {
  public:
    explicit HeaderBuilder(Json& root) : root_(root) {}

    bool null() override { return place(nullptr); }
    bool boolean(bool value) override { return place(value); }
    bool number_integer(Json::number_integer_t value) override { return place(value); }
    bool number_unsigned(Json::number_unsigned_t value) override { return place(value); }
    bool number_float(Json::number_float_t value, const Json::string_t&) override { return place(value); }
    bool string(Json::string_t& value) override { return place(std::move(value)); }
    bool binary(Json::binary_t& value) override { return place(std::move(value)); }
    bool start_object(std::size_t) override {
        if (open_.size() >= static_cast<size_t>(max_header_depth)) throw NestedTooDeep{};
        open_.push_back(placed(Json::object()));
        names_.emplace_back();
        return true;
    }
    bool key(Json::string_t& name) override {
        if (!names_.back().insert(name).second) throw DuplicateName{name, static_cast<int>(open_.size())};
        member_ = &(*open_.back())[name];
        return true;
    }
    bool end_object() override {
        open_.pop_back();
        names_.pop_back();
        return true;
    }
    bool start_array(std::size_t) override {
        if (open_.size() >= static_cast<size_t>(max_header_depth)) throw NestedTooDeep{};
        open_.push_back(placed(Json::array()));
        return true;
    }
    bool end_array() override {
        open_.pop_back();
        return true;
    }
    // Kept for the caller, and parsing stops: a syntax error (with its byte), or another of the
    // parser's exceptions (e.g. a number past a double's range, found by make fuzz).
    bool parse_error(std::size_t position, const std::string&, const Json::exception& error) override {
        syntax_error_ = dynamic_cast<const Json::parse_error*>(&error) != nullptr;
        error_byte_ = position;
        error_text_ = error.what();
        return false;
    }

    bool syntax_error_ = false;
    size_t error_byte_ = 0;
    std::string error_text_;

  private:
    // `value` where the parser is: the whole header, the next item of the open list, or the member of
    // the open object whose name came last.
    template <typename Value>
    Json* placed(Value&& value) {
        if (open_.empty()) {
            root_ = Json(std::forward<Value>(value));
            return &root_;
        }
        if (open_.back()->is_array()) {
            open_.back()->emplace_back(std::forward<Value>(value));
            return &open_.back()->back();
        }
        *member_ = Json(std::forward<Value>(value));
        return member_;
    }
    template <typename Value>
    bool place(Value&& value) {
        placed(std::forward<Value>(value));
        return true;
    }

    Json& root_;
    std::vector<Json*> open_;                    // the lists and objects open, outermost first
    std::vector<std::set<std::string>> names_;  // the names seen so far in each open object
    Json* member_ = nullptr;                     // where the value after the last name goes
};

}  // namespace

Json parse(std::string_view text, const std::string& path) {
    try {
        Json header;
        HeaderBuilder builder(header);
        if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
            if (builder.syntax_error_)
                refuse(path, "the header is not valid JSON (at byte " + std::to_string(builder.error_byte_) + " of " +
                                 std::to_string(text.size()) + ")",
                       layout);
            refuse(path, "the header's JSON cannot be read (" + builder.error_text_ + ")", layout);
        }
        // nlohmann's parser takes a NUL byte for the end of its input and ignores what follows; JSON has
        // no raw NUL anywhere (serde_json, the reference's parser, refuses one), so it is refused here.
        if (const size_t nul = text.find('\0'); nul != std::string_view::npos)
            refuse(path, "the header is not valid JSON (a NUL byte at byte " + std::to_string(nul) + " of " +
                             std::to_string(text.size()) + ")",
                   layout);
        return header;
    } catch (const NestedTooDeep&) {
        refuse(path, "the header nests lists and objects more than " + std::to_string(max_header_depth) + " levels deep",
               "a safetensors header is an object of tensor entries holding lists: 3 levels");
    } catch (const DuplicateName& duplicate) {
        refuse(path,
               (duplicate.depth == 1 ? "the name '" + duplicate.name + "' is given twice in the header"
                                     : "the key '" + duplicate.name + "' is given twice in one object of the header"),
               "each name in a JSON object of the header must be unique");
    } catch (const Json::exception& e) {  // thrown by the parser itself rather than passed to parse_error
        refuse(path, std::string("the header's JSON cannot be read (") + e.what() + ")", layout);
    }
}

}  // namespace wai::weights_header
