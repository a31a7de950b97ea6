// The property the link fuzzer checks, shared with the corpus replay test
// (tests/core/test_link.cpp), so every corpus file is checked the same way in
// the normal test suite, under ASan + UBSan and in wasm.
//
// For any bytes:
//   * link_parse either returns a value or at least one error, never both;
//   * a decoded link re-encodes (link_encode) to a link that decodes to the same
//     experiment, pin and view, and that re-encodes to itself (a fixed point);
//   * link_decompress, fed the bytes as a raw payload, either fails or returns at
//     most link_limits::max_payload_bytes, which link_compress round-trips;
//   * link_base64url_decode is strict: what it accepts encodes back to the input.
#pragma once

#include <string>
#include <string_view>

#include "play/link.hpp"

namespace attn {

// "" when every property holds, else what broke.
inline std::string link_fuzz_check(std::string_view input) {
    const link_parse_result r = link_parse(input);
    if (r.value.has_value() == !r.errors.empty())
        return "link_parse returned a value and errors, or neither";
    if (link_decode(input).value.has_value() != r.value.has_value())
        return "link_decode and link_parse disagree";
    if (r.value) {
        const std::string again = link_encode(*r.value, r.view, r.pin);
        const link_parse_result r2 = link_parse(again);
        if (!r2.value)
            return "re-encoded link does not decode: " + again + "\n  first error: " + r2.errors.front();
        if (!(*r2.value == *r.value))
            return "re-encoded link decodes to a different experiment: " + again;
        if (!(r2.view == r.view))
            return "re-encoded link decodes to a different view: " + again;
        if (!(r2.pin == r.pin))
            return "re-encoded link decodes to a different pin: " + again;
        if (link_encode(*r2.value, r2.view, r2.pin) != again)
            return "link_encode is not a fixed point: " + again;
    }
    std::string problem;
    if (const auto text = link_decompress(input, &problem)) {
        if (text->size() > link_limits::max_payload_bytes)
            return "link_decompress returned more than the limit";
        const std::string packed = link_compress(*text);
        const auto back = link_decompress(packed, &problem);
        if (!back || *back != *text)
            return "link_compress does not round-trip a decompressed payload: " + problem;
    } else if (problem.empty()) {
        return "link_decompress failed without saying why";
    }
    if (const auto bytes = link_base64url_decode(input); bytes && link_base64url_encode(*bytes) != input)
        return "link_base64url_decode accepted a non-canonical string";
    return "";
}

}  // namespace attn
