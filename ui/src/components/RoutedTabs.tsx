import type { ReactNode } from 'react';
import { useNavigate, useParams } from 'react-router';
import { Tab, TabTitleText, Tabs } from '@patternfly/react-core';

/**
 * Tabs of an object's page, each at its own address (`<base>/<key>`, the first at `<base>`), so a tab
 * can be linked to and the back button goes back through them.
 */
export function RoutedTabs({ base, label, tabs }: { base: string; label: string; tabs: { key: string; label: string; content: () => ReactNode }[] }) {
  const navigate = useNavigate();
  const first = tabs[0]?.key;
  const { tab = first } = useParams();
  const pathOf = (key: string | number) => (key === first ? base : `${base}/${key}`);
  return (
    <Tabs
      activeKey={tab}
      aria-label={label}
      mountOnEnter
      unmountOnExit
      onSelect={(event, key) => {
        event.preventDefault();
        navigate(pathOf(key));
      }}
    >
      {tabs.map((t) => (
        <Tab key={t.key} eventKey={t.key} title={<TabTitleText>{t.label}</TabTitleText>} href={pathOf(t.key)}>
          <div style={{ paddingTop: '1rem' }}>{t.content()}</div>
        </Tab>
      ))}
    </Tabs>
  );
}
