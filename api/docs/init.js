// Renders the OpenAPI document named by #redoc's data-spec-url with the bundled Redoc
// (served by the service itself: the page's CSP allows no other origin).
(function () {
  var el = document.getElementById('redoc');
  Redoc.init(el.getAttribute('data-spec-url'), {
    expandResponses: '200,201',
    jsonSampleExpandLevel: 3,
    sortTagsAlphabetically: false,
    theme: {
      typography: {
        fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif',
        headings: { fontFamily: 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif' },
        code: { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' }
      }
    }
  }, el);
})();
