#include "play/lesson_preset.hpp"

#include <iterator>

#include "spec/experiment.hpp"
#include "spec/link_codec.hpp"
#include "spec/recipe.hpp"

namespace attn {

namespace {

constexpr lesson_preset presets[] = {
    {"L1",
     {"Attention is a soft dictionary lookup", "注意力是一次软的字典查找"},
     {"lookup", "查找"},
     {"Pick a query token (click a chip or use ↑/↓). Its probe q is compared with every label k; softmax turns the "
      "competition into weights that sum to 1, and the output mixes the values. Switch to argmax for a hard lookup, or "
      "lower the temperature and watch the weights sharpen.",
      "选一个查询词元（点击词元或按 ↑/↓）。它的探针 q 与每个标签 k 比较；softmax 把竞争变成和为 1 "
      "的权重，输出按权重混合各个值。"
      "切换到 argmax 就是硬查找；或者调低温度，看权重变尖锐。"},
     "v=1&text=the%20cat%20chased%20the%20dog&d_model=8&heads=1&mask=causal",
     stage::weights},
    {"L2",
     {"Why divide by √d_k", "为什么要除以 √d_k"},
     {"√d_k", "√d_k"},
     {"Slide d_k. Unit-variance q and k give q·k a standard deviation of √d_k (8 at d_k = 64); after dividing by √d_k it "
      "is 1 again. Without the scaling, softmax rows saturate: their entropy and their Jacobian (the gradient) collapse.",
      "拖动 d_k。q、k 各分量方差为 1 时，q·k 的标准差是 √d_k（d_k = 64 时为 8）；除以 √d_k 后回到 1。不缩放时 softmax 饱和："
      "熵和雅可比（也就是梯度）一起塌缩。"},
     "v=1&text=the%20cat%20chased%20the%20dog&d_model=64&heads=1&mask=causal",
     stage::scaled},
    {"L3",
     {"Multi-head attention is subspaces", "多头就是多个子空间"},
     {"heads", "多头"},
     {"Change the number of heads at a fixed d_model: parameters and matrix FLOPs stay the same. Q is split by columns into "
      "h matrices of d_k columns. In this constructed model head 0 looks at the previous token, head 1 at the token itself.",
      "固定 d_model 改变头数：参数量和矩阵 FLOPs 不变。Q 按列切成 h 个 d_k 列的矩阵。这个构造出来的模型里，头 0 看前一个词元，"
      "头 1 看自己。"},
     "v=1&text=the%20cat%20sat%20on%20the%20warm%20mat&d_model=16&heads=2&pos=rope&weights=specialised&mask=causal",
     stage::weights},
    {"L4",
     {"Without positions there is no order", "没有位置就没有顺序"},
     {"order", "顺序"},
     {"\"猫追狗\" and \"狗追猫\" are the same bag of tokens: with positions off, permuting the tokens permutes the weights' "
      "rows "
      "and columns and every token keeps its output. Turn on sinusoidal positions or RoPE and it breaks. With RoPE, shift "
      "both positions and the scores stay the same: only the offset counts.",
      "\"猫追狗\"和\"狗追猫\"是同一袋词元：关闭位置编码时，打乱词元只会同时打乱权重矩阵的行和列，每个词元的输出不变。打开正弦"
      "位置编码"
      "或 RoPE 就不一样了。用 RoPE 时把两个位置一起平移，分数不变：只有相对距离起作用。"},
     "v=1&text=%E7%8C%AB%20%E8%BF%BD%20%E7%8B%97&d_model=8&heads=1&mask=none",
     stage::weights},
    {"L5",
     {"O(n²) is structural", "O(n²) 是结构性的"},
     {"cost", "代价"},
     {"The score matrix has n² entries: 32× the length is 1024× the cost. Step the tiled online softmax (the FlashAttention "
      "idea) tile by tile: running max, running sum, rescaling — and the same result without ever holding n². Then decode "
      "token by token with a KV cache and compare the bytes each step reads for MHA, GQA and MQA.",
      "打分矩阵有 n² 个元素：长度 32 倍，代价 1024 倍。一块一块地执行分块在线 softmax（FlashAttention 的思路）：滚动最大值、"
      "滚动和、重新缩放——结果一样，但从不需要整个 n²。再用 KV 缓存逐个词元解码，比较 MHA、GQA、MQA 每步读取的字节数。"},
     "v=1&text=one%20two%20three%20four%20five%20six%20seven%20eight&d_model=16&heads=4&kv_heads=2&mask=causal&decode=4",
     stage::weights},
    {"L6",
     {"The whole core is thirty lines", "整个核心不到三十行"},
     {"code", "代码"},
     {"Step through the stages with ← / →: the lines of the article's numpy code that compute each stage light up. "
      "Everything industrial (half precision, fused kernels, paged KV, batching) is engineering around these lines.",
      "用 ← / → 逐步查看：文章里 numpy 代码中计算当前阶段的那几行会亮起。工业实现的一切（半精度、kernel 融合、KV "
      "分页、批处理）"
      "都是围绕这几行的工程。"},
     "v=1&text=the%20cat%20chased%20the%20dog&mask=causal",
     stage::projections},
    {"L7",
     {"Attention weights are not explanations", "注意力权重不等于解释"},
     {"weights ≠ why", "权重≠解释"},
     {"A bright cell only says V_j was mixed in. Compare the brightest cell with what masking it actually changes; load the "
      "cancelling heads (two bright maps, net effect zero) and the attention sink (the first token soaks up weight but "
      "carries nothing). Ablation, not looking, is the evidence.",
      "亮的格子只说明 V_j "
      "被混了进来。比较最亮的格子和屏蔽它之后输出真正的变化；再看互相抵消的两个头（两张热力图都很亮，净效果为零），"
      "以及注意力沉淀（第一个词元吸走大量权重却不携带内容）。消融才是证据，光看不算。"},
     "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&layers=2&block=full&mask=causal",
     stage::weights},
    {"L8",
     {"Three classic bugs", "三个常见的坑"},
     {"bugs", "常见坑"},
     {"Turn each bug on and compare with the correct computation: masking after softmax (rows no longer sum to 1, the output "
      "darkens), dropping x − max in fp16 (exp overflows past ≈ 11 and NaN spreads to the output), and forgetting W_O "
      "(the heads never mix — silently).",
      "逐个打开这些错误，与正确的计算对比：softmax 之后再掩码（行和不再为 1，输出变暗）、fp16 下省略 x − max（exp 超过约 11 "
      "就溢出，"
      "NaN 一路传到输出）、忘了 W_O（各头永远不混合——而且悄无声息）。"},
     "v=1&text=the%20cat%20chased%20the%20dog&d_model=16&heads=2&mask=causal&precision=fp16&scale=4",
     stage::weights},
    {"L9",
     {"Watch an induction head form", "看一个归纳头形成"},
     {"induction", "归纳头"},
     {"Press Train: a two-layer attention-only model learns to continue a random sequence that repeats. The loss sits on "
      "a plateau, then drops at once (the dashed line). At the drop a layer-1 head starts attending to the token after the "
      "earlier occurrence of the current token (its induction score jumps), reading through a layer-0 head that attends "
      "to the previous token. Then zero each head and read the task's accuracy.",
      "按“训练”：一个两层、只有注意力的模型学着续写一段会重复的随机序列。损失先停在平台上，然后突然下降（虚线）。"
      "下降的那一刻，第 1 层的一个头开始关注“当前词元上一次出现之后的那个词元”（它的归纳得分跳升），"
      "它依赖第 0 层一个关注前一个词元的头。然后逐个把头置零，看任务准确率。"},
     recipe_lesson_induction,
     stage::weights,
     true},
    {"L10",
     {"A shortcut, not a circuit", "捷径，而不是回路"},
     {"shortcut", "捷径"},
     {"The same model trained where the answer is always the token 3 back. Press Train: it solves its task with "
      "positional heads (a high offset score, no induction score) — and fails on the induction task's sequences. It "
      "looks right and is right for the wrong reason; only a test off its training data and ablation show it.",
      "同样的模型，换成答案总是往回数第 3 个词元的任务。按“训练”：它用位置头解决了任务（偏移得分高，没有归纳得分）"
      "——却在归纳任务的序列上失败。它看起来对，对的理由却是错的；只有训练分布之外的测试和消融能揭示这一点。"},
     recipe_lesson_copy_offset,
     stage::weights,
     true},
    // L11 and L12 read L9's model trained to the end: opening them trains it when
    // this page has no run of it yet (a kept run at its end is found at once).
    {"L11",
     {"How the induction head works", "归纳头是怎么工作的"},
     {"circuit", "回路"},
     {"L9's model, trained to the end. A layer-0 head writes \"the token before me\" into each position; the "
      "induction head's keys read it (K-composition), so the current token finds the position just after its earlier "
      "copy, and the head's OV circuit copies the token found there into the prediction. Corrupt the first occurrence "
      "and patch heads back one at a time: the map shows which head, at which position, carries the answer.",
      "L9 的模型，训练到最后。第 0 层的一个头把“我前面那个词元”写进每个位置；归纳头的键读取它（K 组合），"
      "于是当前词元能找到它上一次出现之后的那个位置，而这个头的 OV 回路把那里的词元复制进预测。"
      "破坏第一次出现，再把各个头的输出一个一个补回去：图上显示是哪个头、在哪个位置携带了答案。"},
     recipe_lesson_induction,
     stage::output},
    {"L12",
     {"Learning in context", "上下文学习"},
     {"in context", "上下文"},
     {"The same model's held-out loss at each position over training: after the drop, a repeat's later tokens become "
      "cheap and the first ones do not — the model learns from its own context. The in-context-learning score (the "
      "loss at a repeat minus the loss at its first occurrence) falls below zero with the drop. Then open the markov "
      "task: every row has its own random rule, and the model moves from the uniform to the unigram to the bigram "
      "statistics of the row it reads.",
      "同一个模型在训练过程中每个位置上的留出集损失：下降之后，重复段后面的词元变得便宜，而第一次出现的词元不会——"
      "模型从自己的上下文里学习。上下文学习得分（重复处的损失减去第一次出现处的损失）随下降跌到 0 以下。"
      "再打开马尔可夫任务：每一行都有自己的随机规则，模型从均匀分布，到一元统计，再到它正在读的这一行的二元统计。"},
     recipe_lesson_induction,
     stage::weights},
    // L13 reads a real model (the Model window's) on a text that repeats; the
    // pipeline shows this text in the playground's own small model meanwhile.
    {"L13",
     {"A real model", "真实的模型"},
     {"real model", "真实模型"},
     {"Open a small llama2.c model (stories15M, say): the same attention at scale — RMSNorm, RoPE, SwiGLU, and K/V heads "
      "shared between query heads (GQA). On your own text its heads may show a first-token sink, previous-token heads "
      "and, where the text repeats, induction heads; each claim below is computed on the model you opened. In the Model "
      "window zero a head and watch the next token, and generate text a token at a time through the KV cache.",
      "打开一个小的 llama2.c 模型（比如 stories15M）：同样的注意力，只是规模更大——RMSNorm、RoPE、SwiGLU，"
      "以及由几个查询头共用的 K/V 头（GQA）。在你自己的文字上，它的头可能会表现出第一个词元的沉淀、看前一个词元的头，"
      "文字重复时还有归纳头；下面的每一句都是在你打开的模型上算出来的。在模型窗口里把一个头置零，看下一个词元怎么变，"
      "再通过 KV 缓存一个词元一个词元地生成文字。"},
     "v=1&text=Once%20upon%20a%20time%20there%20was%20a%20cat.%20Once%20upon%20a%20time&mask=causal",
     stage::weights},
};
}  // namespace

static_assert(std::size(presets) == lesson_count, "a row per lesson a link opens (spec/values.hpp: max_lesson)");

const lesson_preset* lesson_preset_find(int lesson) {
    return lesson >= 1 && lesson <= lesson_count ? &presets[lesson - 1] : nullptr;
}

experiment lesson_experiment(int lesson) {
    const lesson_preset* p = lesson_preset_find(lesson);
    if (!p)
        return experiment{};
    auto parsed = experiment_parse(p->text);
    if (!parsed.value)
        return experiment{};
    if (p->untrained)
        parsed.value->train.trained = 0;
    return *parsed.value;
}

std::string lesson_link(int lesson) {
    const lesson_preset* p = lesson_preset_find(lesson);
    return "v=1&view.lesson=" + std::to_string(lesson) + (p && p->untrained ? "&trained=0" : "");
}

const std::array<std::string_view, 3>& lesson7_models() {
    static constexpr std::array<std::string_view, 3> models = {
        "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&layers=2&block=full&mask=causal",
        "v=1&text=the%20cat%20chased%20the%20dog%20home&d_model=16&heads=4&weights=cancel&mask=causal",
        "v=1&text=%3Cs%3E%20the%20cat%20chased%20the%20dog&d_model=16&heads=4&weights=sink&mask=causal",
    };
    return models;
}

}  // namespace attn
