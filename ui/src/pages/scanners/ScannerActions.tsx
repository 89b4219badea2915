import type { ResourceObject } from '../../api/types';
import EnableDisableAction from '../../components/EnableDisableAction';

/** Enable or Disable on a scanner's page; its row has the switch of the Enabled column instead. */
export default function ScannerActions({ object, variant }: { object: ResourceObject<'scanners'>; variant: 'row' | 'detail' }) {
  return variant === 'detail' ? <EnableDisableAction object={object} variant={variant} /> : null;
}
