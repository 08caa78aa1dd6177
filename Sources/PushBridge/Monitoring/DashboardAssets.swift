/// The files of `dashboard/` (the dashboard page, its stylesheet and script, and the Web Push
/// subscribe page with its service worker, manifest and icons), compiled into the binary so that
/// one static binary serves them with no resource bundle.
///
/// The members are written at build time from `dashboard/` by the `DashboardAssetsPlugin`
/// build-tool plugin (`Plugins/DashboardAssetsPlugin`, its tool `Sources/dashboard-assets`), one
/// per file: `indexHTML`, `dashboardCSS`, `dashboardJS`, `subscribeHTML`, `serviceWorkerJS`
/// (`sw.js`), `manifest`, `iconSVG` (the text, exactly) and `icon192PNG`, `icon512PNG` (the
/// bytes). Edit the files in `dashboard/`: the next build embeds them.
enum DashboardAssets {}
