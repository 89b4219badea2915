import { useEffect, useRef, useState } from 'react';
import { Slider } from '@patternfly/react-core';
import type { ResourceObject } from '../../api/types';
import { ErrorAlert } from '../../components/ErrorAlert';
import { useInstancePatch } from './use-instance-patch';

const SAVE_DELAY_MS = 500;

/** The capacity an adjustment gives: from the CPU capacity (0) to the memory capacity (1), as AWX computes it. */
const capacityAt = (instance: ResourceObject<'instances'>, adjustment: number) => {
  const cpu = instance.cpu_capacity;
  const mem = instance.mem_capacity;
  return Math.floor(Math.min(cpu, mem) + (Math.max(cpu, mem) - Math.min(cpu, mem)) * adjustment);
};

/**
 * AWX's capacity adjustment slider (capacity_adjustment 0..1 in tenths): saved once the slider
 * rests, for those who may change the instance.
 */
export function CapacityAdjustment({ instance }: { instance: ResourceObject<'instances'> }) {
  const { error, patch, mayChange } = useInstancePatch(instance);
  const saved = Math.round(instance.capacity_adjustment * 10);
  const [tenths, setTenths] = useState(saved);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => setTenths(saved), [saved]);
  useEffect(() => () => clearTimeout(timer.current), []);

  const change = (value: number) => {
    const next = Math.max(0, Math.min(10, Math.round(value)));
    setTenths(next);
    clearTimeout(timer.current);
    if (next !== saved) timer.current = setTimeout(() => void patch({ capacity_adjustment: next / 10 }), SAVE_DELAY_MS);
  };
  const adjustment = tenths / 10;
  return (
    <div style={{ minWidth: '14rem' }}>
      <Slider
        value={tenths}
        min={0}
        max={10}
        step={1}
        showBoundaries={false}
        isDisabled={!mayChange}
        thumbAriaLabel={`Capacity adjustment of ${instance.hostname}`}
        startActions={<span className="drover-nowrap">CPU {instance.cpu_capacity}</span>}
        endActions={<span className="drover-nowrap">RAM {instance.mem_capacity}</span>}
        onChange={(_e, value) => change(value)}
      />
      <small aria-live="polite">
        Adjustment {adjustment.toFixed(1)}: capacity {capacityAt(instance, adjustment)}
      </small>
      <ErrorAlert error={error} title="Capacity adjustment not saved" />
    </div>
  );
}
