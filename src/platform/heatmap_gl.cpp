#include "heatmap_gl.hpp"

#include <cstdint>
#include <cstdio>
#include <deque>
#include <string>
#include <unordered_map>

#ifdef ATTN_GL_ES
#include <GLES3/gl3.h>
#else
#define GL_GLEXT_PROTOTYPES
#include <GL/gl.h>
#include <GL/glext.h>
#endif

#include "frame_signature.hpp"
#include "shaders.hpp"

namespace attn::platform {

namespace {

#ifdef ATTN_GL_ES
const char* const glsl_prefix = "#version 300 es\nprecision highp float;\nprecision highp sampler2D;\n#line 1\n";
#else
const char* const glsl_prefix = "#version 130\n#line 1\n";
#endif

// Whether a shader's or a program's `status` (compiled, linked) is set; when it
// is not, its info log goes to stderr under `what` ("shader x does not compile").
template <class GetIv, class GetLog>
bool gl_status_ok(GLuint object, GLenum status, GetIv get_iv, GetLog get_log, const std::string& what) {
    GLint ok = GL_FALSE;
    get_iv(object, status, &ok);
    if (ok)
        return true;
    char log[2048] = "";
    get_log(object, sizeof log, nullptr, log);
    std::fprintf(stderr, "attn_app: %s:\n%s\n", what.c_str(), log);
    return false;
}

GLuint shader_compile(GLenum kind, const char* body, const char* name) {
    const GLuint s = glCreateShader(kind);
    const char* parts[2] = {glsl_prefix, body};
    glShaderSource(s, 2, parts, nullptr);
    glCompileShader(s);
    if (!gl_status_ok(s, GL_COMPILE_STATUS, glGetShaderiv, glGetShaderInfoLog,
                      "shader " + std::string(name) + " does not compile")) {
        glDeleteShader(s);
        return 0;
    }
    return s;
}

class heatmap_gl final : public ui::heatmap_gpu {
  public:
    bool init();
    ~heatmap_gl() override;

    void upload(std::uint64_t key, int rows, int cols, const float* texels) override;
    bool draw(ImDrawList* dl, std::uint64_t key, ImVec2 p0, ImVec2 p1, const ui::heatmap_gpu_style& style) override;
    void draw_legend(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const ui::heatmap_gpu_style& style) override;
    void forget(std::uint64_t key) override;
    std::uint64_t frame_signature() const override;

  private:
    struct texture {
        GLuint id = 0;
        int rows = 0, cols = 0;
    };
    // One queued quad; the callback finds it through the ImDrawCmd's user data.
    struct command {
        heatmap_gl* self = nullptr;
        GLuint texture = 0;  // 0: the legend
        int rows = 0, cols = 0;
        ImVec2 p0, p1;
        ui::heatmap_gpu_style style;
    };

    void queue(ImDrawList* dl, const command& c);
    static void callback(const ImDrawList* list, const ImDrawCmd* cmd);
    void execute(const command& c, const ImDrawCmd* cmd) const;

    GLuint program_ = 0, vao_ = 0, vbo_ = 0;
    GLint max_size_ = 0;
    struct {
        GLint rect, display, tex, mode, map, range, cells, cell_px, gap, markers;
    } loc_{};
    std::unordered_map<std::uint64_t, texture> textures_;
    std::deque<command> commands_;  // this frame's; a deque keeps their addresses
    int commands_frame_ = -1;
    std::uint64_t uploads_ = 0;  // textures uploaded or freed so far
};

bool heatmap_gl::init() {
    const GLuint vs = shader_compile(GL_VERTEX_SHADER, shader_heatmap_vert, "heatmap.vert");
    const GLuint fs = shader_compile(GL_FRAGMENT_SHADER, shader_heatmap_frag, "heatmap.frag");
    if (!vs || !fs) {
        if (vs)
            glDeleteShader(vs);
        if (fs)
            glDeleteShader(fs);
        return false;
    }
    program_ = glCreateProgram();
    glAttachShader(program_, vs);
    glAttachShader(program_, fs);
    glBindAttribLocation(program_, 0, "a_corner");
    glLinkProgram(program_);
    glDeleteShader(vs);
    glDeleteShader(fs);
    if (!gl_status_ok(program_, GL_LINK_STATUS, glGetProgramiv, glGetProgramInfoLog, "heatmap shaders do not link"))
        return false;
    loc_.rect = glGetUniformLocation(program_, "u_rect");
    loc_.display = glGetUniformLocation(program_, "u_display");
    loc_.tex = glGetUniformLocation(program_, "u_tex");
    loc_.mode = glGetUniformLocation(program_, "u_mode");
    loc_.map = glGetUniformLocation(program_, "u_map");
    loc_.range = glGetUniformLocation(program_, "u_range");
    loc_.cells = glGetUniformLocation(program_, "u_cells");
    loc_.cell_px = glGetUniformLocation(program_, "u_cell_px");
    loc_.gap = glGetUniformLocation(program_, "u_gap");
    loc_.markers = glGetUniformLocation(program_, "u_markers");
    glGetIntegerv(GL_MAX_TEXTURE_SIZE, &max_size_);

    // The quad's corners as a triangle strip, in its own vertex array so
    // ImGui's stays untouched (ImDrawCallback_ResetRenderState rebinds that one).
    static const float corners[8] = {0, 0, 1, 0, 0, 1, 1, 1};
    GLint last_vao = 0, last_vbo = 0;
    glGetIntegerv(GL_VERTEX_ARRAY_BINDING, &last_vao);
    glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &last_vbo);
    glGenVertexArrays(1, &vao_);
    glGenBuffers(1, &vbo_);
    glBindVertexArray(vao_);
    glBindBuffer(GL_ARRAY_BUFFER, vbo_);
    glBufferData(GL_ARRAY_BUFFER, sizeof corners, corners, GL_STATIC_DRAW);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 2 * sizeof(float), nullptr);
    glBindVertexArray(GLuint(last_vao));
    glBindBuffer(GL_ARRAY_BUFFER, GLuint(last_vbo));
    return true;
}

heatmap_gl::~heatmap_gl() {
    for (auto& [key, t] : textures_)
        glDeleteTextures(1, &t.id);
    if (vbo_)
        glDeleteBuffers(1, &vbo_);
    if (vao_)
        glDeleteVertexArrays(1, &vao_);
    if (program_)
        glDeleteProgram(program_);
}

void heatmap_gl::upload(std::uint64_t key, int rows, int cols, const float* texels) {
    if (rows <= 0 || cols <= 0 || rows > max_size_ || cols > max_size_) {
        forget(key);  // draw() then reports false and the widget draws rectangles
        return;
    }
    texture& t = textures_[key];
    if (!t.id)
        glGenTextures(1, &t.id);
    GLint last = 0;
    glGetIntegerv(GL_TEXTURE_BINDING_2D, &last);
    glBindTexture(GL_TEXTURE_2D, t.id);
    glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
    glPixelStorei(GL_UNPACK_ROW_LENGTH, 0);
    if (t.rows == rows && t.cols == cols) {
        glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RG, GL_FLOAT, texels);
    } else {
        // Float textures are not filterable everywhere (WebGL2 without an
        // extension), and crisp cells want GL_NEAREST anyway.
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
        glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAX_LEVEL, 0);
        glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32F, cols, rows, 0, GL_RG, GL_FLOAT, texels);
        t.rows = rows;
        t.cols = cols;
    }
    glBindTexture(GL_TEXTURE_2D, GLuint(last));
    ++uploads_;
}

void heatmap_gl::forget(std::uint64_t key) {
    const auto it = textures_.find(key);
    if (it == textures_.end())
        return;
    glDeleteTextures(1, &it->second.id);
    textures_.erase(it);
    ++uploads_;
}

// Each of this frame's commands but its `self`, field by field (the struct has padding), after
// the upload count: an upload changes a texture's texels under the same id.
std::uint64_t heatmap_gl::frame_signature() const {
    std::uint64_t h = hash_mix(0, uploads_);
    if (commands_frame_ != ImGui::GetFrameCount())
        return h;  // no quad this frame: the commands are last frame's
    for (const command& c : commands_) {
        const ui::heatmap_gpu_style& s = c.style;
        for (float v : {c.p0.x, c.p0.y, c.p1.x, c.p1.y, s.range.lo, s.range.hi, s.cell_px, s.gap.x, s.gap.y, s.gap.z, s.gap.w})
            h = hash_mix(h, float_bits(v));
        for (std::uint64_t v : {std::uint64_t(c.texture), std::uint64_t(c.rows), std::uint64_t(c.cols), std::uint64_t(s.map),
                                std::uint64_t(s.markers)})
            h = hash_mix(h, v);
    }
    return h;
}

bool heatmap_gl::draw(ImDrawList* dl, std::uint64_t key, ImVec2 p0, ImVec2 p1, const ui::heatmap_gpu_style& style) {
    const auto it = textures_.find(key);
    if (it == textures_.end())
        return false;
    queue(dl, command{this, it->second.id, it->second.rows, it->second.cols, p0, p1, style});
    return true;
}

void heatmap_gl::draw_legend(ImDrawList* dl, ImVec2 p0, ImVec2 p1, const ui::heatmap_gpu_style& style) {
    queue(dl, command{this, 0, 1, 1, p0, p1, style});
}

void heatmap_gl::queue(ImDrawList* dl, const command& c) {
    const int frame = ImGui::GetFrameCount();
    if (frame != commands_frame_) {  // last frame's commands have been rendered
        commands_.clear();
        commands_frame_ = frame;
    }
    commands_.push_back(c);
    dl->AddCallback(&heatmap_gl::callback, &commands_.back());
    dl->AddCallback(ImDrawCallback_ResetRenderState, nullptr);
}

void heatmap_gl::callback(const ImDrawList*, const ImDrawCmd* cmd) {
    const auto* c = static_cast<const command*>(cmd->UserCallbackData);
    c->self->execute(*c, cmd);
}

// Runs inside ImGui_ImplOpenGL3_RenderDrawData, with ImGui's render state set
// (blending, scissor test on, viewport = framebuffer); it changes the program,
// vertex array, texture binding and scissor box, which the ResetRenderState
// callback queued right after it puts back.
void heatmap_gl::execute(const command& c, const ImDrawCmd* cmd) const {
    const ImDrawData* dd = ImGui::GetDrawData();
    const ImVec2 pos = dd->DisplayPos, size = dd->DisplaySize, scale = dd->FramebufferScale;
    const float x0 = (cmd->ClipRect.x - pos.x) * scale.x, y0 = (cmd->ClipRect.y - pos.y) * scale.y;
    const float x1 = (cmd->ClipRect.z - pos.x) * scale.x, y1 = (cmd->ClipRect.w - pos.y) * scale.y;
    if (x1 <= x0 || y1 <= y0)
        return;
    const float fb_h = size.y * scale.y;
    glScissor(GLint(x0), GLint(fb_h - y1), GLsizei(x1 - x0), GLsizei(y1 - y0));

    glUseProgram(program_);
    glUniform4f(loc_.rect, c.p0.x, c.p0.y, c.p1.x, c.p1.y);
    glUniform4f(loc_.display, pos.x, pos.y, size.x, size.y);
    glUniform1i(loc_.tex, 0);
    glUniform1i(loc_.mode, c.texture ? 0 : 1);
    glUniform1i(loc_.map, c.style.map == ui::colormap::diverging ? 1 : 0);
    glUniform2f(loc_.range, c.style.range.lo, c.style.range.hi);
    glUniform2f(loc_.cells, float(c.cols), float(c.rows));
    glUniform1f(loc_.cell_px, c.style.cell_px * scale.x);
    glUniform3f(loc_.gap, c.style.gap.x, c.style.gap.y, c.style.gap.z);
    glUniform1i(loc_.markers, c.style.markers ? 1 : 0);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, c.texture);
    glBindVertexArray(vao_);
    glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
}

}  // namespace

std::unique_ptr<ui::heatmap_gpu> heatmap_gl_create() {
    auto gl = std::make_unique<heatmap_gl>();
    if (!gl->init())
        return nullptr;
    return gl;
}

}  // namespace attn::platform
