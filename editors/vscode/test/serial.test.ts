import assert from "node:assert/strict";
import { test } from "node:test";
import { SerialRestart } from "../src/client/serial.ts";

/** A stop and a start that log themselves and wait until the test lets them finish. */
function harness() {
  const log: string[] = [];
  const waiting: (() => void)[] = [];
  const step = (name: string) => () =>
    new Promise<void>((resolve) => {
      log.push(`${name} begins`);
      waiting.push(() => {
        log.push(`${name} ends`);
        resolve();
      });
    });
  const serial = new SerialRestart(step("stop"), step("start"));
  const finish = async () => {
    await new Promise((r) => setImmediate(r));
    const next = waiting.shift();
    assert.ok(next, `nothing is running; log: ${log.join(", ")}`);
    next();
    await new Promise((r) => setImmediate(r));
  };
  return { log, serial, finish, idle: () => waiting.length === 0 };
}

test("restart: a request while stopping is served by the same restart", { timeout: 5000 }, async () => {
  const { log, serial, finish, idle } = harness();
  const first = serial.request();
  const second = serial.request(); // workspace trust and its settings change, together
  await finish(); // stop
  await finish(); // start
  await Promise.all([first, second]);
  assert.deepEqual(log, ["stop begins", "stop ends", "start begins", "start ends"]);
  assert.ok(idle());
});

test("restart: requests while starting get exactly one more restart, after it", { timeout: 5000 }, async () => {
  const { log, serial, finish, idle } = harness();
  const first = serial.request();
  await finish(); // stop
  await new Promise((r) => setImmediate(r));
  const more = [serial.request(), serial.request(), serial.request()];
  await finish(); // start
  await finish(); // stop again
  await finish(); // start again
  await Promise.all([first, ...more]);
  assert.deepEqual(log, [
    "stop begins", "stop ends", "start begins", "start ends",
    "stop begins", "stop ends", "start begins", "start ends",
  ]);
  assert.ok(idle());
});

test("restart: a failing start ends that request with its error, and the next request restarts", { timeout: 5000 }, async () => {
  const log: string[] = [];
  let fail = true;
  const serial = new SerialRestart(
    async () => void log.push("stop"),
    async () => {
      log.push("start");
      if (fail) throw new Error("exited during the handshake");
    },
  );
  await assert.rejects(serial.request(), /handshake/);
  fail = false;
  await serial.request();
  assert.deepEqual(log, ["stop", "start", "stop", "start"]);
});
