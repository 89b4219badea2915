import type { ResourceObject } from '../../api/types';
import { RegoView } from './RegoEditor';

/** The policy's Rego, highlighted (edit it from Edit). */
export default function PolicyRego({ object }: { object: ResourceObject<'policies'> }) {
  return <RegoView source={object.rego_module} />;
}
