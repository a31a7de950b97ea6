// Links: an experiment (and how to show it) as a short string for the URL hash.
// This file is the codec (the pairs, view keys, z= and pin= compression); a whole
// link, opened from its lesson's experiment, is play/link.hpp.
//
// A link is '&'-separated key=value pairs, in two parts:
//
//   experiment   the canonical text form (experiment_to_text), when it is at most
//                link_limits::compress_above (2000) characters:
//                    v=1&text=the%20cat&seed=1&...&edits=
//                otherwise one pair z=<payload> (see "Compressed form" below), used
//                only when it is actually shorter:
//                    z=AQ...
//   pin          optional, one pair pin=<base64url, no padding>: the pinned
//                experiment A of an A/B compare (session.hpp), written after the
//                experiment part when there is one. Its value is always the
//                compressed form's payload (below) of A's canonical text, so it
//                never needs escaping and is short (a readable copy would double
//                the link); it is checked as strictly as z= and A as strictly as
//                the experiment itself, every problem prefixed "pin: ".
//   view         optional pairs with keys prefixed "view.", written after the
//                experiment part and only when they differ from link_view{}:
//                    ...&view.lesson=3&view.stage=5&view.row=2&view.hide=controls,code
//                    &view.readonly=1&view.embed=1
//                They say how the page shows the experiment and are never part of
//                the experiment value. They stay readable (outside the compressed
//                payload) so an embed snippet can be edited by hand. Each key at
//                most once, values plain ASCII (not percent-decoded):
//                    view.lesson    1..10   the lesson L1..L10 (-1: none); the
//                                   experiment keys then override the lesson's
//                                   own experiment (lesson_preset.hpp) instead
//                                   of the defaults
//                    view.stage     -1..10  (-1: none; a stage the experiment
//                                   has: stage.hpp)
//                    view.row       -1..n-1 (-1: none; n = the experiment's tokens)
//                    view.hide      comma-separated panels, each at most once:
//                                   controls, code, inspector, lessons, stepper
//                    view.readonly  0 or 1
//                    view.embed     0 or 1
//                    view.poster    0 or 1: the page shows a picture or a card
//                                   and loads nothing until Run (web/posters.js)
//                    view.theme     light or dark
//                An unknown view.* key is an error, like an unknown experiment key.
//
// link_decode accepts: the canonical form, the compressed form, either with a
// leading '#', and a whole playground URL (everything up to and including the
// first '#' is dropped, e.g. "https://example.org/attn/index.html?embed=1#z=...").
// Leading and trailing ASCII whitespace (from copy and paste) is ignored. Every
// problem comes back as a readable message; the value is set only when there are
// none, so a bad link never half-applies.
//
// Compressed form, z=<base64url, no padding> of these bytes:
//   method     1 byte: 1 = LZ77 over (frozen dictionary ‖ text) + adaptive binary
//              range coder (order-0 literals). A new method gets a new byte; the
//              decoder for method 1 and its dictionary never change.
//   size       LEB128 varint (1..3 bytes, minimal): the payload's length in bytes,
//              at most link_limits::max_payload_bytes, checked before anything is
//              allocated.
//   check      3 bytes: the low 24 bits of FNV-1a 64 of the payload, little-endian
//              (a damaged or truncated link is an error, not a different experiment).
//   stream     the range-coded tokens; its trailing zero bytes are left out.
//              Tokens are a match flag, then a literal byte (an 8-bit tree) or a
//              copy: length - 2 and distance, each an adaptive Elias-gamma code.
//              A copy may overlap its own output (a run) but never reach before
//              the dictionary or past the declared size; reading stops at the
//              declared size, so time and memory are bounded by it.
// The payload is the experiment's canonical text (v=1 today). Integer arithmetic
// only, so native and wasm produce the same bytes.
//
// Compatibility: a link written today must open the same experiment after any
// future format change; tests/core/test_link.cpp pins v=1 links (canonical and
// compressed) to the experiments they produce.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "spec/experiment.hpp"

namespace attn {

// Documented limits, checked before any allocation. compress_above: many chats
// and tools cut links past about 2,000 characters, so up to that length a link
// stays in its readable form (a sentence in any script, percent-encoded, and a
// few changes; the default experiment is 266 characters); beyond it the
// compressed form is far shorter (200 random edges and edits: 2769 -> 1200).
// The Share menu shows a link's length and warns past compress_above.
struct link_limits {
    static constexpr std::size_t compress_above = 2000;      // canonical texts longer than this are compressed
    static constexpr std::size_t max_link_bytes = 65536;     // a whole link, URL prefix included
    static constexpr std::size_t max_payload_bytes = 32768;  // the decompressed z= payload
    static constexpr std::size_t max_model_name = 128;       // model=<name>@…: the file name's bytes
    static constexpr std::size_t max_url = 2048;             // model_url=, tokenizer_url=: the address's bytes
};

// Panels a link can hide (view.hide=controls,code), link_view: values.hpp;
// view_panel_name: keys.hpp.

// One view option ("view.stage=5") into v, checked exactly as in a link (the
// native app's --lesson and --stage are these keys); the problems, or none.
std::vector<std::string> link_view_set(link_view& v, std::string_view pair);
// The view keys of v ("&view.lesson=3..."), only those that differ from link_view{}.
std::string link_view_to_text(const link_view& v);

// A link cut into its parts, every key checked but no experiment parsed yet: the
// play room's link_parse (play/link.hpp) parses the experiment text from the base
// its lesson names. text is unset when the experiment part is unreadable.
struct link_parts {
    link_view view;
    std::optional<std::string> text;      // the experiment's pairs (z= already decompressed)
    std::optional<std::string_view> pin;  // pin='s value, still compressed (a view of the link)
    bool pin_twice = false;
    std::vector<std::string> errors;
};
link_parts link_split(std::string_view link);

// Why `value` (after "model=", or `key`= : "tokenizer") is not <file name>@<16
// lowercase hex digits>: the name of letters, digits, '.', '_' and '-' (at most
// link_limits::max_model_name), the digits the start of the file's SHA-256.
// nullopt when it is.
std::optional<std::string> link_model_problem(std::string_view value, std::string_view key = "model");
// The model= value of a file: its name's base (after the last '/' or '\\') with
// every other character as '_', cut to max_model_name, '@', the first 16 hex
// digits of sha256 (lowercase). "" when sha256 has fewer than 16 digits.
std::string link_model_ref(std::string_view file_name, std::string_view sha256);

// Why `value` (after "model_url=" or "tokenizer_url=", `key`) is not an address
// the page may fetch a model from: http:// or https://, or a path relative to the
// page (no other scheme); at most link_limits::max_url bytes of URL characters,
// percent-encoded as in any link (no space, '&', '#', quote or control
// character; each %XX two hex digits, the bytes they make valid UTF-8, as the
// page's decodeURIComponent needs). nullopt when it is.
std::optional<std::string> link_url_problem(std::string_view key, std::string_view value);

// The experiment of a text form, from `base`; the text form carries scale's
// number only for a custom scale (never the base's), and an omitted `trained`
// means all the steps, whatever the base says.
experiment_parse_result link_parse_from(std::string_view text, const experiment& base);
// pin='s value: A, parsed from the defaults (its text names every key), or nullopt
// with the problems in errors, each prefixed "pin: ".
std::optional<experiment> link_parse_pin(std::string_view value, std::vector<std::string>& errors);
// z=: the compressed form of a canonical text ("z=" + base64url payload) when it is
// longer than link_limits::compress_above and the compressed form is shorter; else text.
std::string link_shorten(std::string text);

// [SECTION] the codec, exposed for tests and the fuzzer

// The compressed payload bytes (method, size, check, stream) of text, which must be
// at most link_limits::max_payload_bytes long (longer text gives an empty string).
std::string link_compress(std::string_view text);
// The text of a payload, or nullopt with *error set. Bounded: refuses a size above
// link_limits::max_payload_bytes before allocating, never reads outside `bytes`.
std::optional<std::string> link_decompress(std::string_view bytes, std::string* error = nullptr);

std::string link_base64url_encode(std::string_view bytes);
std::optional<std::string> link_base64url_decode(std::string_view text);  // strict: no padding, no stray bits

// An LZ77 token: a literal byte (length == 0) or a copy of `length` bytes from
// `distance` bytes back in (dictionary ‖ text so far).
struct link_token {
    unsigned char literal = 0;
    int length = 0;
    int distance = 0;
};
// A method-1 payload from explicit tokens, with the given size and check fields.
// Lets tests write hostile payloads (back-references before the start, sizes
// that lie); link_compress is link_payload_from_tokens over its own parse.
std::string link_payload_from_tokens(const std::vector<link_token>& tokens, std::uint64_t size, std::uint32_t check);
// The check field of a payload's text (low 24 bits of FNV-1a 64).
std::uint32_t link_payload_check(std::string_view text);

}  // namespace attn
