// The values a person sets up, as plain structs: the experiment (experiment.hpp
// says what it means and its canonical text), the training recipe inside it
// (recipe.hpp) and how a link shows it (link_view, link_codec.hpp), with their
// documented limits. No functions here: the key table (keys.hpp) reads and writes
// these members, and the parser, the writer and the controls read that table.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/precision.hpp"

namespace attn {

enum class train_task { none, induction, copy_offset, reverse, sort, previous, markov };
enum class lr_schedule { constant, cosine };

// Documented limits, checked before any allocation.
struct train_limits {
    static constexpr int max_steps = 20000;  // a run the page can scrub through
    static constexpr int max_batch = 256;
    static constexpr int min_seq = 4, max_seq = 128;
    static constexpr int min_vocab = 4, max_vocab = 62;  // symbols a–z, A–Z, 0–9
    static constexpr int max_snapshots = 64;             // kept weights (see train.hpp)
    static constexpr int max_dense_snapshots = 8;        // more of them where the loss falls fastest
    static constexpr float max_lr = 10.0f;
    // train=induction: a segment of distinct symbols, a prefix without them, the repeat.
    static constexpr int min_induction_rows = 8;  // vocab and seq
    // train=markov: the Dirichlet concentration of each row's transitions. Below 0.1
    // the boosted Gamma draws U^(1/α) of 53-bit uniforms would reach double's
    // underflow; above 100 every row's chain is near uniform (nothing to learn).
    static constexpr float min_markov_alpha = 0.1f, max_markov_alpha = 100.0f;
};

struct train_settings {
    train_task task = train_task::none;
    int steps = 800;
    float lr = 0.01f;
    int batch = 32;
    int seq = 24;
    int vocab = 16;
    std::uint32_t train_seed = 1;  // batches and the held-out set (the weights come from `seed`)
    int warmup = 50;               // steps of linear learning-rate warm-up
    float wd = 0.01f;              // AdamW's decoupled weight decay
    float clip = 1.0f;             // global gradient-norm clip; 0 turns it off
    lr_schedule sched = lr_schedule::constant;
    int offset = 3;             // copy_offset: the target is the token `offset` back
    float markov_alpha = 1.0f;  // markov: each row's transitions ~ symmetric Dirichlet(markov_alpha)
    // How far the model shown is trained: steps taken, 0 … steps; trained_all (the
    // default, not written) is all of them. Not part of the run: changing it moves
    // along the same run (the Train panel's Pause, Step, Reset and scrubber).
    int trained = trained_all;
    static constexpr int trained_all = -1;

    // The steps the model shown has taken.
    int trained_steps() const { return trained == trained_all ? steps : trained; }
    // These settings with `trained` at its default: what identifies the run.
    train_settings run_identity() const {
        train_settings r = *this;
        r.trained = trained_all;
        return r;
    }

    bool operator==(const train_settings&) const = default;
};

enum class positional { none, sinusoidal, rope, learned };  // learned: trained absolute positions (recipe.hpp)
enum class mask_kind { none, causal, padding };
enum class score_scale { sqrt_dk, none, custom };
enum class softmax_mode { stable, no_max, argmax };
enum class mask_placement { before_softmax, after_softmax };
// attention_only: y = attention(x); attention_residual: y = x + attention(x) (the
// attention-only transformer in which induction heads form); full: pre-norm
// residual + FFN per layer.
enum class block_kind { attention_only, full, attention_residual };
// How the parameters are made: drawn from the seed, or drawn and then partly
// constructed by hand to show one behaviour (see model_generate in forward.hpp).
enum class weight_init { random, specialised, cancel, sink };

// Documented limits, checked before any allocation.
struct experiment_limits {
    static constexpr int max_text_bytes = 4096;
    static constexpr int max_tokens = 1024;
    static constexpr int max_d_model = 256;
    static constexpr int max_heads = 16;
    static constexpr int max_layers = 4;
    static constexpr int max_pos_offset = 100000;
    static constexpr int max_list_items = 256;    // edges, ablate, edits each
    static constexpr float max_abs_value = 1e6f;  // edits, custom scale, temperature
    // Below this the stable softmax cannot work: an ordinary score divided by a
    // temperature near the smallest float (1e-45) is infinite, and inf - inf is NaN.
    // At 1e-6 the softmax is already an argmax for any score gap above ~1e-4.
    static constexpr float min_temperature = 1e-6f;
    // rope_base: above 1 and at most this (0 or below gives infinite or NaN
    // frequencies; at most 1, the pairs no longer slow down from first to last).
    static constexpr float max_rope_base = 1e9f;
    // Custom scale, edits: any value from -1e6 to 1e6 works, 0 and denormals included
    // (every score 0 gives uniform weights); what overflows beyond that is shown as inf/NaN.
};

struct masked_edge {
    int layer = 0, head = 0, query = 0, key = 0;
    bool operator==(const masked_edge&) const = default;
};

struct ablated_head {
    int layer = 0, head = 0;
    bool operator==(const ablated_head&) const = default;
};

// Which generated matrix an edit overrides.
enum class edit_target { x, w_q, w_k, w_v, w_o, w_1, w_2 };

struct value_edit {
    edit_target target = edit_target::x;
    int layer = 0;  // ignored for x
    int row = 0, col = 0;
    float value = 0.0f;
    bool operator==(const value_edit&) const = default;
};

struct experiment {
    std::string text = "the cat chased the dog";
    std::uint32_t seed = 1;
    int d_model = 8;
    int heads = 2;
    int kv_heads = 2;  // = heads: MHA; 1: MQA; a divisor of heads: GQA
    int layers = 1;
    block_kind block = block_kind::attention_only;
    weight_init weights = weight_init::random;
    positional pos = positional::none;
    float rope_base = 10000.0f;
    int pos_offset = 0;  // position of the first token (shift every position)
    mask_kind mask = mask_kind::causal;
    int pad = 0;  // with mask=padding: how many trailing tokens are padding
    std::vector<masked_edge> edges;
    score_scale scale = score_scale::sqrt_dk;
    float scale_value = 1.0f;  // used when scale == custom
    softmax_mode softmax = softmax_mode::stable;
    float temperature = 1.0f;
    mask_placement mask_at = mask_placement::before_softmax;
    bool use_wo = true;
    precision prec{};  // fp32
    std::vector<ablated_head> ablate;
    int decode = 0;  // 0: off; t: KV-cache decoding has consumed the first t tokens
    std::vector<value_edit> edits;
    train_settings train;  // train=none: no training (recipe.hpp)

    bool operator==(const experiment&) const = default;
};

// Panels a link can hide (view.hide=controls,code).
enum class view_panel { controls, code, inspector, lessons, stepper };
inline constexpr int view_panel_count = 5;

// How the page shows an experiment. Zero / default means "as usual".
// view.theme: the colours a link asks for (an embed's host matching its page);
// automatic leaves them to the reader's choice or the system's.
enum class view_theme { automatic, light, dark };

struct link_view {
    int lesson = -1;                            // -1: none; 1..10: open lesson L1..L10
    int stage = -1;                             // -1: none; 0..10: the stepper's stage
    int row = -1;                               // -1: none; else a query row (token) of the experiment
    std::array<bool, view_panel_count> hide{};  // indexed by view_panel
    bool readonly = false;                      // controls cannot change the experiment
    bool embed = false;                         // minimal chrome, for an <iframe>
    view_theme theme = view_theme::automatic;   // view.theme=light|dark
    bool poster = false;                        // click-to-run: nothing loads until Run (the shell reads it)
    // model=<file name>@<the first 16 hex digits of its SHA-256>: the real model the
    // link reads (link_model_problem says the form); the weights never travel in it.
    std::string model;
    // tokenizer=<file name>@<the first 16 hex digits of its SHA-256> (with model=):
    // the tokenizer the model is read with. A kept or fetched tokenizer is used
    // for the link only when its hash is this; a link without it (written before
    // it existed) never takes its tokenizer from the browser's store on trust.
    std::string tokenizer;
    // model_url=, tokenizer_url= (with model=, both or neither): where a host
    // keeps the two files, fetched when the link is opened in a browser that
    // does not keep the model, the checkpoint's SHA-256 checked against model=
    // and the tokenizer's against tokenizer= (when the link has it).
    // As written in the link (percent-encoded; link_url_problem says the form).
    std::string model_url, tokenizer_url;
    // The Model window's "Continue", sampled as llama2.c samples: a shared link
    // generates the same text.
    float temperature = 0.8f;  // 0: the likeliest token each time
    float top_p = 0.9f;        // nucleus sampling; 0 or 1: the whole distribution
    int gen_seed = 1;
    int gen_tokens = 40;
    // The Model window's selected head (view.model_head=layer.head) and what the
    // person changed in the model's pass, as the experiment's ablate= and edges=
    // change the toy's: heads zeroed (view.model_ablate) and attention edges
    // masked (view.model_edges). Checked against the model when it is open.
    int model_layer = 0, model_head = 0;
    std::vector<ablated_head> model_ablate;
    std::vector<masked_edge> model_edges;
    bool model_pipeline = false;  // view.model_pipeline=1: the pipeline shows that model at its layer

    bool hides(view_panel p) const { return hide[std::size_t(p)]; }
    bool operator==(const link_view&) const = default;
};

struct link_view_limits {
    // The lessons a link can open, from 1 as their names L1..L13 count: the rows of
    // play/lesson_preset.cpp's table (a new lesson adds one there and counts it here).
    static constexpr int max_lesson = 13;
    static constexpr int max_stage = 10;
};

}  // namespace attn
