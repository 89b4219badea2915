import { objectOf, type AnyResource } from '../../api/types';
import { RegoView } from './RegoEditor';

/** The policy's Rego, highlighted (edit it from Edit). */
export default function PolicyRego({ object }: { object: AnyResource }) {
  return <RegoView source={objectOf('policies', object).rego_module} />;
}
