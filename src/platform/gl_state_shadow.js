// A copy of the WebGL state Dear ImGui's OpenGL backend backs up on every frame,
// linked into the page with --js-library (CMakeLists.txt).
//
// ImGui_ImplOpenGL3_RenderDrawData reads the scissor box and the six blend
// factors and equations with glGetIntegerv before it draws. In Chromium those
// seven getParameter calls are not answered from the WebGL client's own state
// but by a synchronous round trip to the GPU process, and the first one waits
// until the GPU has run every command sent before it: with a software GPU
// (SwiftShader) 5–55 ms of every frame, the first frame's shader compilation
// included, during which the page neither draws nor trains.
//
// Every change of that state goes through the functions below (only the app's
// wasm calls GL, with valid arguments), so a value once read or set is known:
// glGetIntegerv answers from the copy and asks the GPU only for a value not yet
// known. Nothing is kept while the context is lost, and a lost or restored
// context starts the copy afresh.
var LibraryAttnGLStateShadow = {
  // The copy, kept on the context: pname -> array of integers. Null while the
  // context is lost (then every call goes to WebGL, and nothing is kept).
  $attnGLState: function () {
    if (!GLctx.attnState) {
      const state = (GLctx.attnState = new Map());
      const forget = () => state.clear();
      GLctx.canvas.addEventListener('webglcontextlost', forget);
      GLctx.canvas.addEventListener('webglcontextrestored', forget);
    }
    return GLctx.isContextLost() ? null : GLctx.attnState;
  },

  glScissor__deps: ['$attnGLState'],
  glScissor__sig: 'viiii',
  glScissor: function (x, y, width, height) {
    GLctx.scissor(x, y, width, height);
    const state = attnGLState();
    if (state) state.set(0x0C10 /* GL_SCISSOR_BOX */, [x, y, width, height]);
  },

  glBlendFuncSeparate__deps: ['$attnGLState'],
  glBlendFuncSeparate__sig: 'viiii',
  glBlendFuncSeparate: function (srcRGB, dstRGB, srcAlpha, dstAlpha) {
    GLctx.blendFuncSeparate(srcRGB, dstRGB, srcAlpha, dstAlpha);
    const state = attnGLState();
    if (!state) return;
    state.set(0x80C9 /* GL_BLEND_SRC_RGB */, [srcRGB]);
    state.set(0x80C8 /* GL_BLEND_DST_RGB */, [dstRGB]);
    state.set(0x80CB /* GL_BLEND_SRC_ALPHA */, [srcAlpha]);
    state.set(0x80CA /* GL_BLEND_DST_ALPHA */, [dstAlpha]);
  },

  glBlendFunc__deps: ['glBlendFuncSeparate'],
  glBlendFunc__sig: 'vii',
  glBlendFunc: function (src, dst) {
    _glBlendFuncSeparate(src, dst, src, dst);
  },

  glBlendEquationSeparate__deps: ['$attnGLState'],
  glBlendEquationSeparate__sig: 'vii',
  glBlendEquationSeparate: function (modeRGB, modeAlpha) {
    GLctx.blendEquationSeparate(modeRGB, modeAlpha);
    const state = attnGLState();
    if (!state) return;
    state.set(0x8009 /* GL_BLEND_EQUATION_RGB */, [modeRGB]);
    state.set(0x883D /* GL_BLEND_EQUATION_ALPHA */, [modeAlpha]);
  },

  glBlendEquation__deps: ['glBlendEquationSeparate'],
  glBlendEquation__sig: 'vi',
  glBlendEquation: function (mode) {
    _glBlendEquationSeparate(mode, mode);
  },

  glGetIntegerv__deps: ['$emscriptenWebGLGet', '$attnGLState'],
  glGetIntegerv__sig: 'vii',
  glGetIntegerv: function (name, p) {
    const state = attnGLState();
    const kept = p && state ? state.get(name) : undefined;
    if (kept) {
      for (let i = 0; i < kept.length; ++i) HEAP32[(p >> 2) + i] = kept[i];
      return;
    }
    emscriptenWebGLGet(name, p, {{{ cDefine('EM_FUNC_SIG_PARAM_I') }}});
    const size = name === 0x0C10 ? 4
      : (name === 0x80C9 || name === 0x80C8 || name === 0x80CB || name === 0x80CA || name === 0x8009 || name === 0x883D) ? 1 : 0;
    if (p && size && state && !GLctx.isContextLost()) state.set(name, Array.from(HEAP32.subarray(p >> 2, (p >> 2) + size)));
  },
};

mergeInto(LibraryManager.library, LibraryAttnGLStateShadow);
