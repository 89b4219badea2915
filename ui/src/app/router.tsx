import { createBrowserRouter } from 'react-router';
import { AppLayout } from './AppLayout';
import { NotFound } from '../pages/NotFound';
import { Loading } from '../components/Loading';

const page = (loader: () => Promise<{ default: React.ComponentType }>) => async () => ({ Component: (await loader()).default });

/**
 * Every page is its own chunk, loaded when first visited (creating the router starts loading the first).
 * Until the first page's chunk is in, the router shows its HydrateFallback.
 */
export const createRouter = () => createBrowserRouter([
  { path: '/login', HydrateFallback: Loading, lazy: page(() => import('../pages/login/LoginPage')) },
  { path: '/login/second-factor', HydrateFallback: Loading, lazy: page(() => import('../pages/login/SecondFactorPage')) },
  {
    path: '/',
    Component: AppLayout,
    HydrateFallback: Loading,
    children: [
      { index: true, lazy: page(() => import('../pages/dashboard/DashboardPage')) },
      { path: 'analytics', lazy: page(() => import('../pages/analytics/AnalyticsPage')) },
      { path: 'settings', lazy: page(() => import('../pages/settings/SettingsPage')) },
      { path: 'settings/:category', lazy: page(() => import('../pages/settings/SettingsPage')) },
      { path: 'security', lazy: page(() => import('../pages/security/SecurityPage')) },
      { path: 'catalog', lazy: page(() => import('../pages/portal/CatalogPage')) },
      { path: 'catalog/:id', lazy: page(() => import('../pages/portal/RequestFormPage')) },
      { path: 'my_requests', lazy: page(() => import('../pages/portal/MyRequestsPage')) },
      { path: 'approvals', lazy: page(() => import('../pages/portal/ApprovalsPage')) },
      { path: ':resource', lazy: page(() => import('../pages/resource/ListPage')) },
      { path: ':resource/add', lazy: page(() => import('../pages/resource/FormPage')) },
      { path: ':resource/:id', lazy: page(() => import('../pages/resource/DetailPage')) },
      { path: ':resource/:id/edit', lazy: page(() => import('../pages/resource/FormPage')) },
      { path: ':resource/:id/:tab', lazy: page(() => import('../pages/resource/DetailPage')) },
      { path: '*', Component: NotFound },
    ],
  },
]);
