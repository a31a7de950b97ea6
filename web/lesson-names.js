// The app's names a poster card shows before the app exists: its stages, and its lessons' titles.
//
// The one copy in web/ (posters.js reads it; the page gives it to tests as
// attnShell.posterNames, and tests/web/a11y.test.mjs checks it against the app's):
// titles from src/ui/view/lessons.cpp, stage names from src/ui/view/stages.cpp, sentences and
// first stages from src/core/play/lesson_preset.cpp.
export const lessonNames = {
  stages: ['Tokens → X', 'Q, K, V', 'Scores Q·Kᵀ', 'Scale /√d_k', 'Mask', 'Softmax', 'Weights·V', 'Concat heads', '·W_O',
    'Residual (+ FFN)', 'Output'],
  defaultStage: 0,
  defaultText: 'the cat chased the dog',
  lessons: [
    { id: 'L1', title: 'Attention is a soft dictionary lookup', text: 'the cat chased the dog', stage: 5 },
    { id: 'L2', title: 'Why divide by √d_k', text: 'the cat chased the dog', stage: 3 },
    { id: 'L3', title: 'Multi-head attention is subspaces', text: 'the cat sat on the warm mat', stage: 5 },
    { id: 'L4', title: 'Without positions there is no order', text: '猫 追 狗', stage: 5 },
    { id: 'L5', title: 'O(n²) is structural', text: 'one two three four five six seven eight', stage: 5 },
    { id: 'L6', title: 'The whole core is thirty lines', text: 'the cat chased the dog', stage: 1 },
    { id: 'L7', title: 'Attention weights are not explanations', text: 'the cat chased the dog home', stage: 5 },
    { id: 'L8', title: 'Three classic bugs', text: 'the cat chased the dog', stage: 5 },
    { id: 'L9', title: 'Watch an induction head form', text: 'j a b c d e f g c d e f g', stage: 5 },
    { id: 'L10', title: 'A shortcut, not a circuit', text: 'j a b c d e f g c d e f g', stage: 5 },
    { id: 'L11', title: 'How the induction head works', text: 'j a b c d e f g c d e f g', stage: 10 },
    { id: 'L12', title: 'Learning in context', text: 'j a b c d e f g c d e f g', stage: 5 },
    { id: 'L13', title: 'A real model', text: 'Once upon a time there was a cat. Once upon a time', stage: 5 },
  ],
};
