#!/usr/bin/env node
// A Node.js client of the Gallerist hint service: plays one whole game through the service.
//
// It loads the repository's .proto files with @grpc/proto-loader (no generated code, no
// rules engine of its own), reads a state written by `gallerist new` (protobuf's JSON
// mapping) and sends it back unchanged, then plays the game to its end: LegalActions and
// ApplyAction at every step (decisions by id, by notation, chance events by a seed), and
// SuggestMoves now and then, playing the move it ranks first. With --opponent SPEC (e.g.
// level:3) the last seat is an AI opponent: one SuggestMoves call per decision, playing
// the move the response says that bot plays (`chosen`).
//
//   node play.js --address localhost:50051 --state game.json [--out final.json]
//                [--seed N] [--hints 3] [--iterations 20] [--opponent SPEC] [--token TOKEN]
//
// Before the game it checks that nothing of the JSON state is lost on the way: the state
// object serialized and read back by proto-loader must equal the JSON object, and, given
// --seed (the seed of `gallerist new --seed N`), NewGame with the same players and seed
// must give that same object. It prints one JSON line
// {"ok": true, "actions": ..., "hints": ..., "money": [...], "winners": [...]} and exits 0;
// on any failure it prints "error: ..." and exits 1 (2 for bad usage). --out writes the
// final state, as JSON, for the caller to check.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { isDeepStrictEqual, parseArgs } = require('node:util');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

const PROTO_ROOT = path.resolve(__dirname, '..', '..', 'proto');
// Plain objects as protobuf's JSON mapping has them: lowerCamelCase field names (the
// default, keepCase: false), enums by name, every field with no presence present.
const LOADER_OPTIONS = { enums: String, longs: String, defaults: true, oneofs: false,
                         includeDirs: [PROTO_ROOT] };
// A game that has not ended after this many actions means the client or service is wrong.
const MAX_ACTIONS = 20000;

const USAGE = `usage: node play.js --address HOST:PORT --state FILE [--out FILE] [--seed N]
                    [--hints N] [--iterations N] [--opponent SPEC] [--token TOKEN]

Plays one whole game through the Gallerist hint service, from a state written by
\`gallerist new\` (protobuf's JSON mapping), and prints one JSON line with the result.

  --address HOST:PORT  the service (e.g. localhost:50051)
  --state FILE         the game's start, e.g. from \`gallerist new --seed 7 -o game.json\`
  --seed N             the seed the state was made with: NewGame with it must give the same
                       state (checked only when given); also seeds the client's random moves
                       (default 1)
  --hints N            SuggestMoves calls on the way, the best move played (default 3)
  --iterations N       the hints' MCTS iterations (default 20)
  --opponent SPEC      the last seat is this bot (e.g. level:3, level:elo=900): it plays
                       the move SuggestMoves says it plays (the response's \`chosen\`)
  --token TOKEN        the service's bearer token, when it asks for one
  --out FILE           write the final state here, as JSON
  --help               show this message

Exit status: 0 the game was played, 1 it failed, 2 bad usage.`;

class UsageError extends Error {}

function parseOptions(argv) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: {
      address: { type: 'string' }, state: { type: 'string' }, out: { type: 'string' },
      seed: { type: 'string' }, hints: { type: 'string', default: '3' },
      iterations: { type: 'string', default: '20' }, token: { type: 'string' },
      opponent: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    } }));
  } catch (err) {
    throw new UsageError(err.message);
  }
  if (values.help) return { help: true };
  const seedGiven = values.seed !== undefined;
  if (!seedGiven) values.seed = '1';
  for (const name of ['address', 'state']) {
    if (!values[name]) throw new UsageError(`--${name} is required`);
  }
  const numbers = {};
  for (const name of ['seed', 'hints', 'iterations']) {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 0) {
      throw new UsageError(`--${name}: expected a whole number >= 0, got ${values[name]}`);
    }
    numbers[name] = n;
  }
  return { ...values, ...numbers, seedGiven };
}

function loadService() {
  const file = path.join(PROTO_ROOT, 'gallerist', 'v1', 'hints.proto');
  const definition = protoLoader.loadSync(file, LOADER_OPTIONS);
  const v1 = grpc.loadPackageDefinition(definition).gallerist.v1;
  return { definition, GalleristAI: v1.GalleristAI };
}

// Promise-returning unary calls, with the token (if any) and a deadline on each.
function connect(GalleristAI, address, token) {
  const stub = new GalleristAI(address, grpc.credentials.createInsecure());
  const call = (method, request, seconds = 30) => new Promise((resolve, reject) => {
    const metadata = new grpc.Metadata();
    if (token) metadata.set('authorization', `Bearer ${token}`);
    const deadline = new Date(Date.now() + seconds * 1000);
    stub[method](request, metadata, { deadline }, (err, response) => {
      if (err) reject(new Error(`${method}: ${err.code} ${err.details}`));
      else resolve(response);
    });
  });
  return { stub, call };
}

// The state as proto-loader sends it and reads it back: what the server will see.
function roundTrip(definition, state) {
  const method = definition['gallerist.v1.GalleristAI'].LegalActions;
  return method.requestDeserialize(method.requestSerialize({ state })).state;
}

function readState(file) {
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`--state: cannot read ${file}: ${err.message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--state: ${file} is not JSON: ${err.message}`);
  }
}

// The path of the first place where two JSON values differ ("" when they are equal).
function firstDifference(a, b, at = 'state') {
  if (isDeepStrictEqual(a, b)) return '';
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return at;
  if (Array.isArray(a) && Array.isArray(b) && a.length !== b.length) return `${at}.length`;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const where = Array.isArray(a) ? `${at}[${key}]` : `${at}.${key}`;
    if (!isDeepStrictEqual(a[key], b[key])) return firstDifference(a[key], b[key], where);
  }
  return at;
}

// Nothing of the JSON state may be dropped or changed by proto-loader, and (given --seed)
// NewGame with the same players and seed must give the same state object.
async function checkState(definition, call, state, options) {
  const lost = firstDifference(roundTrip(definition, state), state);
  if (lost) {
    throw new Error(`the JSON state changed on its way through proto-loader at ${lost} `
                    + '(a field dropped or renamed)');
  }
  if (!options.seedGiven) return;
  const { seed } = options;
  const fresh = await call('NewGame', { numPlayers: state.numPlayers, seed });
  const differs = firstDifference(fresh.state, state);
  if (differs) {
    throw new UsageError(`--seed ${seed}: NewGame(${state.numPlayers} players, seed ${seed}) `
      + `differs from the --state file at ${differs}; give the seed the file was made with `
      + '(gallerist new --seed N), or leave --seed out');
  }
  assert.equal(fresh.position.kind, 'POSITION_KIND_DECISION');
}

// A small seeded generator (mulberry32), so a run is repeatable.
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// The request of one move: the hint's best move, or a random legal one (by id or, every
// third time, by notation); a chance event's outcome is drawn by the server from a seed.
async function chooseMove(call, state, legal, turn) {
  const { position, actions } = legal;
  if (position.kind === 'POSITION_KIND_CHANCE') {
    return { request: { state, chanceSeed: String(Math.floor(turn.rand() * 2 ** 40)) } };
  }
  if (turn.opponent && position.player === state.numPlayers - 1) {
    turn.opponentMoves += 1;
    const reply = await call('SuggestMoves', {
      state, botSpec: turn.opponent, maxMoves: 1, seed: turn.opponentMoves });
    assert.ok(reply.chosen, 'SuggestMoves did not say which move the opponent plays');
    assert.ok(actions.some((a) => a.action === reply.chosen.action),
      `the opponent's move ${reply.chosen.notation} is not legal`);
    return { request: { state, action: reply.chosen.action }, expect: reply.chosen.action };
  }
  if (turn.hintAt.has(turn.decisions++)) {
    turn.hints += 1;   // MCTS, greedy, MCTS, ...
    const hint = await call('SuggestMoves', {
      state, botSpec: turn.hints % 2 ? 'mcts' : 'greedy', maxMoves: 3, seed: turn.hints,
      budget: { iterations: turn.iterations, timeMs: 2000 } });
    assert.equal(hint.player, position.player, 'SuggestMoves ranked another seat');
    assert.ok(hint.moves.length > 0 && hint.legalMoveCount === actions.length,
      'SuggestMoves: no moves, or a legal move count that LegalActions does not have');
    return { request: { state, action: hint.moves[0].action }, expect: hint.moves[0].action };
  }
  const pick = actions[Math.floor(turn.rand() * actions.length)];
  if (turn.decisions % 3 === 0) {
    return { request: { state, notation: pick.notation }, expect: pick.action };
  }
  return { request: { state, action: pick.action }, expect: pick.action };
}

// Plays from `state` to the end; returns the final state and position.
async function playGame(call, state, options) {
  const turn = { rand: random(options.seed), decisions: 0, hints: 0,
                 iterations: options.iterations, hintAt: new Set(),
                 opponent: options.opponent, opponentMoves: 0 };
  // hints at the first decision and then every 25th, `options.hints` in all
  for (let k = 0; k < options.hints; k++) turn.hintAt.add(25 * k);
  for (let actions = 0; actions < MAX_ACTIONS; actions++) {
    const legal = await call('LegalActions', { state });
    if (legal.position.kind === 'POSITION_KIND_TERMINAL') {
      assert.equal(legal.actions.length, 0, 'a finished game still has legal actions');
      return { state, position: legal.position, actions, hints: turn.hints,
               opponentMoves: turn.opponentMoves };
    }
    const { request, expect } = await chooseMove(call, state, legal, turn);
    const applied = await call('ApplyAction', request);
    if (expect !== undefined) assert.equal(applied.action, expect, 'ApplyAction applied another action');
    assert.equal(applied.position.actionsPlayed, state.history.length + 1);
    state = applied.state;
  }
  throw new Error(`the game did not end within ${MAX_ACTIONS} actions`);
}

async function main(argv) {
  const options = parseOptions(argv);
  if (options.help) {
    console.log(USAGE);
    return;
  }
  const state = readState(options.state);
  const { definition, GalleristAI } = loadService();
  const { stub, call } = connect(GalleristAI, options.address, options.token);
  try {
    await checkState(definition, call, state, options);
    const end = await playGame(call, state, options);
    if (end.hints < options.hints) {
      throw new Error(`the game ended after ${end.hints} of ${options.hints} hints`);
    }
    if (options.out) fs.writeFileSync(options.out, JSON.stringify(end.state));
    console.log(JSON.stringify({ ok: true, actions: end.actions, hints: end.hints,
                                 opponentMoves: end.opponentMoves,
                                 money: end.position.money, winners: end.position.winners }));
  } finally {
    stub.close();
  }
}

main(process.argv.slice(2)).catch((err) => {
  console.error(`error: ${err.message}`);
  process.exitCode = err instanceof UsageError ? 2 : 1;
});
