import { EventEmitter } from 'eventemitter3';
import type { LudusEmitter, LudusEventMap } from '../core/events.ts';
import type { BroadcastHub, HubRun } from './hub.ts';

/** Registers a run with the hub and returns the emitter its engine publishes to; every event goes to the hub. */
export function liveRun(hub: BroadcastHub, run: HubRun): LudusEmitter {
  hub.addRun(run);
  const emitter: LudusEmitter = new EventEmitter<LudusEventMap>();
  emitter.on('event', (event) => hub.publish(run.id, event));
  return emitter;
}
