// The run store: trained runs kept in IndexedDB by recipe, and one page of the site training a recipe at a time.
import { keptStore } from './idb.js';

// [Runs] trained runs kept in this browser's IndexedDB ('attn-runs') under their
// recipe's canonical text: a recipe trained once opens trained again on a
// reload, in another tab or in another frame of a page, without training again.
// The app asks for a recipe's run when it starts one (runWanted) and hands over a
// run at its step that went further than the one kept (runStore): trainer_save's
// bytes, which the core checks against its own arithmetic before it takes them
// (src/core/train/trainer_file.hpp), so a run another build wrote is dropped here
// and trained again. The record under '' lists the others' sizes: at most
// runs.budget bytes together, the one stored longest ago goes first. Never sent
// anywhere. A page that stores a run tells the site's other pages (a
// BroadcastChannel), and one that is training that recipe takes it.
//
// One page of the site trains a recipe at a time (frames of one recipe on a
// teacher's page, two tabs). The app asks when a recipe's run is made and
// whenever its training starts again (Train pressed): a page that finds no run kept takes the Web Lock
// 'attn-train <key>' while it trains that recipe (runTraining: the app says when it
// trains), and stores its run before it lets go. A page that finds the lock held
// tells the app (attn_hook_run_elsewhere: its Train panel says so, its run takes
// no step), waits for the lock, then looks again: the other's run, stored, is
// taken; none (that page closed or stopped), it trains itself.
export const runs = Object.assign(keptStore('attn-runs', 'runs'), {
  budget: 256 << 20,
  asked: '',
  taken: 0,      // runs the app took in place of training (for the tests: shell.runs)
  refused: [],   // why the app refused the ones it refused
  channel: null,
  waiting: '',   // the key whose lock another page holds, waited for
  held: null,    // { key, release } while this page holds a recipe's lock
  told: { key: '', training: false, awaited: false },  // the app's last runTraining
  stored: Promise.resolve(),  // the last store, done before a lock is let go
  listen() {
    if (this.channel || typeof BroadcastChannel === 'undefined') return;
    this.channel = new BroadcastChannel('attn-runs');
    this.channel.onmessage = (m) => {
      if (m.data && m.data.key === this.asked && this.waiting !== this.asked) this.offer(m.data.key, -1);
    };
  },
  // The kept run of `key` to the app, when it went further than `reach`: whether it took one.
  offer(key, reach) {
    // The list's entry first: a run that went no further is not read (17 MB for L9).
    return this.run('readonly', (s) => s.get('')).then((list) => {
      const entry = list && Array.isArray(list.list) ? list.list.find((e) => e.key === key) : null;
      if (!entry || (entry.reach !== undefined && entry.reach <= reach)) return null;
      return this.run('readonly', (s) => s.get(key));
    }).then((r) => {
      if (!r || r.reach <= reach || key !== this.asked) return false;
      const why = this.give(new Uint8Array(r.bytes));
      if (!why) this.taken++;
      if (why && !/went as far/.test(why)) {
        this.refused.push(why);
        return this.remove(key).then(() => false);  // another build's, or damaged: trained again
      }
      return !why;
    }).catch(() => false);
  },
  // The app started a run of `key` that reached `reach`: the kept one, when it
  // went further; else the lock, or the wait for the page that holds it; then
  // the answer, which the run waits for before its steps.
  wanted(key, reach) {
    this.listen();
    this.asked = key;
    if (this.held && this.held.key !== key) this.letGo();
    return this.settle(key, reach);
  },
  async settle(key, reach) {
    const M = window.Module;
    try {
      while (key === this.asked) {
        if (await this.offer(key, reach)) return;
        if (key !== this.asked || !navigator.locks || (this.held && this.held.key === key)) return;
        if (await this.hold(key)) {
          if (this.idle(key)) this.letGo();  // a run that stopped waiting (the app's 3 s): no lock
          return;
        }
        this.waiting = key;
        M.ccall('attn_hook_run_elsewhere', null, ['string'], [key]);  // its run takes no step meanwhile
        await navigator.locks.request('attn-train ' + key, () => undefined);  // until the other lets go
        this.waiting = '';
      }
    } catch (e) {
      this.waiting = '';  // no lock or no store: trained here
    } finally {
      if (key === this.asked) M.ccall('attn_hook_run_answered', null, ['string'], [key]);
    }
  },
  // The lock of `key`, when no other page holds it: kept until letGo.
  hold(key) {
    return new Promise((granted) => {
      navigator.locks.request('attn-train ' + key, { ifAvailable: true }, (lock) => {
        if (!lock) return granted(false);
        granted(true);
        return new Promise((release) => { this.held = { key, release }; });
      }).catch(() => granted(true));
    });
  },
  letGo() {
    const held = this.held;
    this.held = null;
    if (held) this.stored.finally(held.release);  // its run stored first: the waiting page finds it
  },
  // The app: whether it trains `key` now, and whether its run awaits the answer.
  training(key, training, awaited) {
    this.told = { key, training, awaited };
    if (this.held && (this.held.key !== key || this.idle(key))) this.letGo();
  },
  // Whether the app's last word on `key` says it neither trains it nor awaits its answer.
  idle(key) {
    const told = this.told;
    return told.key === key && !told.training && !told.awaited;
  },
  give(bytes) {
    const M = window.Module;
    const p = M._malloc(bytes.length);
    if (!p) return 'these bytes do not fit in the page\'s memory';
    M.HEAPU8.set(bytes, p);
    const why = M.ccall('attn_hook_keep_run', 'string', ['number', 'number'], [p, bytes.length]);
    M._free(p);
    return why;
  },
  // The list record and its entries {key, size, time}, changed by `edit(list, store)` in one transaction.
  edit(body) {
    return this.run('readwrite', (s) => {
      const got = s.get('');
      got.onsuccess = () => {
        const list = (got.result && Array.isArray(got.result.list)) ? got.result.list : [];
        s.put({ key: '', list: body(list, s) });
      };
    });
  },
  store(key, reach, bytes) {
    if (bytes.length > this.budget / 2) return Promise.resolve();
    return this.edit((list, s) => {
      s.put({ key, reach, bytes: bytes.buffer });
      list = list.filter((e) => e.key !== key).concat([{ key, reach, size: bytes.length, time: Date.now() }]);
      list.sort((a, b) => a.time - b.time);
      let total = list.reduce((n, e) => n + e.size, 0);
      while (total > this.budget && list.length > 1) {
        const old = list.shift();
        s.delete(old.key);
        total -= old.size;
      }
      return list;
    }).then(() => {
      if (this.channel) this.channel.postMessage({ key, reach });
    }).catch(() => undefined);
  },
  remove(key) {
    return this.edit((list, s) => { s.delete(key); return list.filter((e) => e.key !== key); }).catch(() => undefined);
  },
});

// What the app calls (attnShell.runWanted, runStore, runTraining) and what tests read (attnShell.runs).
export const runHooks = {
  // Called by the app for the trained runs this browser keeps.
  runWanted(key, reach) { runs.wanted(String(key), Number(reach)); },
  get runs() { return { taken: runs.taken, refused: runs.refused.slice() }; },
  runStore(key, reach, bytes) { runs.stored = runs.store(String(key), Number(reach), bytes); },
  runTraining(key, training, awaited) { runs.training(String(key), !!training, !!awaited); },
};
