import { Suspense, useEffect } from 'react';
import { Link, Navigate, Outlet, useLocation, useNavigate } from 'react-router';
import {
  Masthead,
  MastheadBrand,
  MastheadContent,
  MastheadMain,
  MastheadToggle,
  Nav,
  NavExpandable,
  NavItem,
  NavList,
  Page,
  PageSidebar,
  PageSidebarBody,
  PageToggleButton,
  SkipToContent,
  Title,
  Toolbar,
  ToolbarContent,
  ToolbarItem,
} from '@patternfly/react-core';
import { useQueryClient } from '@tanstack/react-query';
import { http } from '../api/client';
import { onSessionExpired } from '../api/session-events';
import { useMe } from '../hooks/api-hooks';
import { Loading } from '../components/Loading';
import { useNavigation } from './useNavigation';
import { loginPath, secondFactorPath } from './login-path';
import { UserMenu } from './UserMenu';
import { useAssistantDrawer } from '../assistant/AssistantDrawer';
import { pageBranding } from './branding';

const isActive = (path: string, current: string) => (path === '/' ? current === '/' : current === path || current.startsWith(`${path}/`));

export function AppLayout() {
  const me = useMe();
  const location = useLocation();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const assistant = useAssistantDrawer();
  const pending = me.data?.second_factor_pending === true;
  const navigation = useNavigation(pending ? undefined : me.data?.id);

  // An expired session (any 401) goes to the login page, which comes back here after; a session
  // that must pass its second factor first (the API's wall) goes to that step, and back after.
  useEffect(
    () =>
      onSessionExpired((why) => {
        if (window.location.pathname.startsWith('/login')) return;
        queryClient.clear();
        const here = `${window.location.pathname}${window.location.search}`;
        navigate(why === 'second_factor' ? secondFactorPath(here) : loginPath(window.location), { replace: true });
      }),
    [navigate, queryClient],
  );

  // The page starts loading beside the session check (its requests are refused the same way without one).
  if (me.error) return <Navigate to={loginPath(location)} replace />;
  if (pending) return <Navigate to={secondFactorPath(`${location.pathname}${location.search}`)} replace />;

  const logout = async () => {
    await http.post('/api/logout/').catch(() => undefined);
    queryClient.clear();
    navigate('/login', { replace: true });
  };

  const branding = pageBranding();
  const brandName = branding?.name || 'Drover';
  const masthead = (
    <Masthead>
      <MastheadMain>
        <MastheadToggle>
          <PageToggleButton isHamburgerButton aria-label="Navigation">
          </PageToggleButton>
        </MastheadToggle>
        <MastheadBrand>
          <Link to="/" aria-label={`${brandName} home`} style={{ textDecoration: 'none' }}>
            {branding?.logo_url && <img className="drover-brand-logo" src={branding.logo_url} alt="" />}
            <Title headingLevel="h2" size="xl" style={{ display: 'inline' }}>{brandName}</Title>
          </Link>
        </MastheadBrand>
      </MastheadMain>
      <MastheadContent>
        <Toolbar isFullHeight>
          <ToolbarContent>
            <ToolbarItem align={{ default: 'alignEnd' }}>{assistant.toggle}</ToolbarItem>
            <ToolbarItem>{me.data && <UserMenu me={me.data} onLogout={() => void logout()} />}</ToolbarItem>
          </ToolbarContent>
        </Toolbar>
      </MastheadContent>
    </Masthead>
  );

  const sidebar = (
    <PageSidebar>
      <PageSidebarBody>
        <Nav aria-label="Main">
          <NavList>
            {navigation.map((group) => (
              <NavExpandable key={group.group} title={group.group} isExpanded groupId={group.group} isActive={group.items.some((i) => isActive(i.path, location.pathname))}>
                {group.items.map((item) => (
                  <NavItem key={item.path} isActive={isActive(item.path, location.pathname)}>
                    <Link to={item.path}>{item.label}</Link>
                  </NavItem>
                ))}
              </NavExpandable>
            ))}
          </NavList>
        </Nav>
      </PageSidebarBody>
    </PageSidebar>
  );

  return (
    <Page
      isManagedSidebar
      masthead={masthead}
      sidebar={sidebar}
      skipToContent={<SkipToContent href="#main">Skip to content</SkipToContent>}
      mainContainerId="main"
      notificationDrawer={assistant.panel}
      isNotificationDrawerExpanded={assistant.open}
      drawerDefaultSize="30rem"
    >
      <Suspense fallback={<Loading />}>
        <Outlet />
      </Suspense>
    </Page>
  );
}
