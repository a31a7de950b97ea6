#include "model/stage.hpp"

namespace attn {

bool stage_applies(stage s, const experiment& e) { return s != stage::block || e.block != block_kind::attention_only; }

const char* stage_missing_reason(stage s, const experiment& e) {
    if (stage_applies(s, e))
        return "";
    return "stage 9 (the residual, + FFN) exists only with block=attn_res or block=full";
}

}  // namespace attn
