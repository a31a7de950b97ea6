// Weight-only circuits of a trained model: what each head does to tokens, read
// from its weights alone (no row). docs/circuits.md has the definitions.
//
// Shapes: V vocab, d d_model, d_k per head; E = W_E (V × d) the token
// embeddings (positions left out), U = W_U (d × V). Row vectors throughout.
//
//   full QK circuit  E W_QK(δ) Eᵀ   (V × V): row = query token, column = key
//                    token, the score before the scale 1/√d_k, at RoPE's relative
//                    offset δ (circuits_head_qk); offsets 0 and 1 by default
//   full OV circuit  E W_OV U        (V × V): row = the attended token, column =
//                    the logit its write adds to
//     top-1 rate     the share of rows whose largest entry is on the diagonal (the
//                    head writes the attended token's own logit most)
//     copying score  Σ Re λ / Σ |λ| over the eigenvalues λ of E W_OV U (Eigen's
//                    EigenSolver, in double): 1 for a pure copier, −1 for an anti-copier
//   K-composition full circuit of a layer-0 head a and a later head b:
//                    E W_QK^b(δ) (E W_OV^a)ᵀ (V × V): row = the query token, column =
//                    the token s that head a read at the key position — when a
//                    attends to the previous token, s is the token before the key,
//                    and an induction head's map is bright on its diagonal (the key
//                    after an earlier copy of me). The query side is the token
//                    embedding alone; at δ = 0 (no rotation) unless asked.
//     top-1 rate     the share of rows whose largest entry is on the diagonal
//   positional QK pattern (T × T): row = query position, column = key position
//                    learned or sinusoidal positions P (T × d): P W_QK Pᵀ
//                    RoPE: the mean embedding ē scored against itself at each
//                    offset, ē W_Q^h R(i − j) (ē W_K^j)ᵀ — what position alone adds
//                    to a score, for a typical token; it depends on i − j only
//                    no positions: empty
//
// With block=full the RMSNorm before each head is left out (it scales each row
// by a positive number and has no gain): the maps' shapes hold, their scale is
// not the model's. Exact otherwise (attn_res, attn).
#pragma once

#include <memory>
#include <vector>

#include "train/train.hpp"

namespace attn {

struct circuit_head_maps {
    int layer = 0, head = 0;
    std::vector<float> qk;      // (offsets, V, V) the full QK circuit at each offset of circuit_weights::offsets
    std::vector<float> ov;      // (V, V) the full OV circuit
    float ov_top1 = 0;          // the OV circuit's diagonal top-1 rate
    float copying = 0;          // its copying score
    std::vector<float> pos_qk;  // (T, T) the positional QK pattern; empty without positions
};

struct circuit_k_map {
    int layer_a = 0, head_a = 0, layer_b = 0, head_b = 0;
    std::vector<float> map;  // (V, V) the K-composition full circuit
    float top1 = 0;          // its diagonal top-1 rate
};

// Eigen's eigen-solver for the copying score and its input matrix, laid out on the
// first call for a size and reused after (Eigen's memory; weights.cpp). A copy
// starts empty: it is scratch, not a value.
class circuit_eigen_scratch {
  public:
    circuit_eigen_scratch();
    ~circuit_eigen_scratch();
    circuit_eigen_scratch(const circuit_eigen_scratch&);
    circuit_eigen_scratch& operator=(const circuit_eigen_scratch&);
    struct impl;
    impl& get(int n);  // laid out for n × n matrices (anew when n changes)

  private:
    std::unique_ptr<impl> p_;
};

struct circuit_weights {
    int V = 0, T = 0;
    std::vector<int> offsets{0, 1};        // RoPE offsets of the QK maps (set before the call)
    int k_offset = 0;                      // RoPE offset of the K-composition maps
    std::vector<circuit_head_maps> heads;  // layer by layer, head by head
    std::vector<circuit_k_map> k_maps;     // every (layer 0 head, layer ≥ 1 head) pair
    // Scratch, laid out on the first call for a shape: a later call of the same
    // shape allocates nothing.
    std::vector<double> side_a, side_b;                   // (V × d)
    std::vector<double> E, wq, left, right, ov, P, mean;  // (V × d), (d × d_k), 2 × (max(V, T) × d_k), (d × d), (T × d), (d)
    circuit_eigen_scratch eigen;
};

// Every head's maps and every K-composition map of run's weights at its current step.
void circuits_weights(const train_run& run, circuit_weights& out);

// Share of the rows of m (n × n) whose largest entry is the diagonal one.
float circuit_diagonal_top1(const float* m, int n);

// Σ Re λ / Σ |λ| over the eigenvalues of m (n × n); 0 for the zero matrix. With
// scratch: nothing allocated after the first call for n.
float circuit_copying_score(const float* m, int n);
float circuit_copying_score(const float* m, int n, circuit_eigen_scratch& scratch);

}  // namespace attn
