// Training's share of the page's frames, and the measures of a trained model,
// as core calls: the session trains for a slice of time, then measures what its
// model does a few held-out rows at a time, so the page keeps drawing while a
// big recipe trains or is measured. The native app and the page share it.
#pragma once

#include "play/session.hpp"

namespace attn {

// Seconds of training steps in the next frame (train_pace_update).
struct train_pace {
    static constexpr double frame = 0.048;  // the frame interval aimed at while training
    static constexpr double least = 0.003;
    static constexpr double most = 0.080;
    // A frame's share for the measures of a trained model when nothing trains: the
    // page keeps drawing at ~30 frames/s or more while it reads (L11's circuit after
    // each move of the snapshot slider), instead of training's 20.
    static constexpr double measuring = 0.004;
    // Training apart (session_trains_apart): how often the job's steps are taken
    // in and drawn, at most (a frame that comes later takes them then).
    static constexpr double post = 0.050;
    double slice = 0.010;
    double interval = 0;  // the recent frame interval, smoothed (0: none yet)
    double drawing = 0;   // the recent frame interval less its training, smoothed
};

// Training's share of the frames while a recipe trains: frames come about every
// train_pace::frame seconds (20 a second), and training takes what drawing leaves
// of them. The slice follows the measured interval (smoothed): it grows while
// frames come faster than that and shrinks while they come slower; between
// `least` (a step a frame) and `most`. The time the page waits for the GPU (a
// software rasteriser sharing the CPU here) is then training's too. When drawing
// alone takes longer than the frame aimed at (a software rasteriser, many maps),
// the slice stays at least a third of the drawing's time: training keeps a
// quarter of the page's time instead of starving to a step every few frames.
void train_pace_update(train_pace& p, double frame_interval, double trained_seconds, double target = train_pace::frame);

// About `slice` seconds of training: the trainer follows the experiment and takes
// steps; once it is at its step, a pinned recipe of B's shape is retrained beside
// it. While the store beyond is asked for the recipe's run (session::runs_beyond)
// it takes no step. Returns the seconds it took. Training apart, it takes no step itself: it
// takes in the job's steps (every train_pace::post seconds at most) and measures.
double session_train(session& s, double slice);

// Training off the drawing thread (trainer_launch): with more than one thread
// in a build that has them, the steps run on a thread of their own and the pool,
// launched by session_train_launch once the frame's reading of the run is over
// (the trace, the measures) and taken in by the next frames' session_train. A
// change (session_apply) takes the job's steps in first: the run is the
// session's again until the next launch.
bool session_trains_apart(const session& s);
void session_train_launch(session& s);
// The threads the steps run on: apart, all but one, which is the drawing's (on
// two cores the drawing keeps one whole core: the frames' rate does not depend
// on the recipe's size); in the frames, all of them.
int session_train_threads(const session& s);

// A run kept beyond the page (trainer_file.hpp: the browser's store) given back:
// when it is the run of exp's recipe and reached further than the one training
// now, it takes that one's place (the step shown is still exp's: only the
// training it spares changes); otherwise it joins the kept runs (s.kept), unless
// a run of its recipe there or pinned reached as far. False when it was not
// taken (a run here went as far).
bool session_keep_run(session& s, trainer t);
// The store beyond answered the ask for `key` (with a run, given first, or
// none): exp's run trains again. An answer for a key no longer asked is dropped.
void session_run_answered(session& s, const std::string& key);
// The store beyond says another page trains `key` now: the answer waits for that page's run.
void session_run_elsewhere(session& s, const std::string& key);

// The measures of the trained model at its step (the task effect of the ablated
// heads, the every-head ablation table, L10's shortcut), each taking held-out
// rows for at most about `slice` seconds; a new model starts them again.
void session_measure_trained(session& s, double slice);
// Whether those measures have work left for the next session_measure_trained.
bool session_measuring(const session& s);

// L11's and L12's measures of the trained model (circuit_study.hpp) on the page's
// text (s.prediction's symbols), for about `slice` seconds: nothing until the
// trainer is at its step; what changed with the step or the text at once, then the
// timeline's snapshots and the claims' rows a piece at a time. The page calls it
// while L11 or L12 is open.
bool session_measure_circuit(session& s, double slice);

}  // namespace attn
