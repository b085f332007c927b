// paymirror console: the little the pages do in the browser. Everything works without it;
// with it, the live tables refresh themselves and the Totals and Books charts are drawn. Served
// by the app as a file of its own (the Content-Security-Policy allows no inline script).
'use strict';

(function () {
  /** 123456 → "R$ 1.234,56", from integer centavos with integer arithmetic (as the server). */
  function brl(cents) {
    const value = Math.round(Number(cents));
    const abs = Math.abs(value);
    const whole = String(Math.trunc(abs / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, '.');
    const fraction = String(abs % 100).padStart(2, '0');
    return (value < 0 ? '-' : '') + 'R$ ' + whole + ',' + fraction;
  }

  function clock() {
    return new Date().toLocaleTimeString('pt-BR', { timeZone: 'America/Sao_Paulo' });
  }

  /**
   * A region marked data-refresh-seconds is fetched again (the same URL) and replaced by its
   * new version, unless the reader turned refreshing off, is working inside it, or the page is
   * hidden. The markup comes from the server, escaped there; it is parsed, never run.
   */
  function liveRegions() {
    const regions = document.querySelectorAll('[data-refresh-seconds][id]');
    regions.forEach(function (region) {
      const seconds = Number(region.getAttribute('data-refresh-seconds'));
      if (!(seconds > 0)) return;
      const id = region.id;
      const toggle = document.getElementById('auto-refresh');
      const stamp = document.getElementById('refreshed-at');
      const timer = setInterval(function () {
        const current = document.getElementById(id);
        if (!current || document.hidden) return;
        if (toggle && !toggle.checked) return;
        if (current.contains(document.activeElement)) return;
        fetch(location.href, { credentials: 'same-origin', headers: { accept: 'text/html' } })
          .then(function (response) {
            if (!response.ok) {
              clearInterval(timer);
              if (stamp) stamp.textContent = 'Refreshing stopped (HTTP ' + response.status + ').';
              return null;
            }
            return response.text();
          })
          .then(function (text) {
            if (text === null) return;
            const fresh = new DOMParser().parseFromString(text, 'text/html').getElementById(id);
            const now = document.getElementById(id);
            if (fresh && now && !now.contains(document.activeElement)) {
              now.replaceWith(document.importNode(fresh, true));
              if (stamp) stamp.textContent = 'Updated ' + clock() + '.';
            }
          })
          .catch(function () {
            if (stamp) stamp.textContent = 'Could not refresh at ' + clock() + '.';
          });
      }, seconds * 1000);
    });
  }

  const TONES = {
    PAGO: '#17754a',
    MED: '#d08c00',
    CHARGEBACK: '#b35c00',
    ESTORNADO: '#7a56c2',
    PENDENTE: '#7f8aa3',
    EM_PROCESSAMENTO: '#4f8bd6',
    CANCELADO: '#b9c0cf',
    RECUSADO: '#c0392b',
    FALHA: '#8e1b22',
  };

  function dayLabel(day) {
    const parts = day.split('-');
    return parts[2] + '/' + parts[1];
  }

  /**
   * Draws the chart of the canvas `id` from the JSON its data-source names: `config(data)` is
   * Chart.js's configuration. A chart that cannot be drawn is replaced by the reason.
   */
  function chartFromSource(id, config) {
    const canvas = document.getElementById(id);
    if (!canvas || typeof window.Chart !== 'function') return;
    fetch(canvas.getAttribute('data-source'), { credentials: 'same-origin' })
      .then(function (response) {
        if (!response.ok) throw new Error('HTTP ' + response.status);
        return response.json();
      })
      .then(function (data) {
        new window.Chart(canvas, config(data));
        canvas.setAttribute('data-drawn', 'true');
      })
      .catch(function (error) {
        canvas.replaceWith(document.createTextNode('The chart could not be drawn: ' + error));
      });
  }

  /** The Totals chart: gross centavos per day, stacked by status, from the page's JSON. */
  function dailyChart() {
    chartFromSource('daily-chart', function (data) {
      return {
        type: 'bar',
        data: {
          labels: data.days.map(dayLabel),
          datasets: data.series.map(function (series) {
            return {
              label: series.status,
              data: series.cents,
              backgroundColor: TONES[series.status] || '#9aa3b5',
            };
          }),
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          scales: {
            x: { stacked: true },
            y: { stacked: true, ticks: { callback: brl } },
          },
          plugins: {
            tooltip: {
              callbacks: {
                title: function (items) {
                  return items.length ? data.days[items[0].dataIndex] : '';
                },
                label: function (item) {
                  return item.dataset.label + ': ' + brl(item.raw);
                },
              },
            },
          },
        },
      };
    });
  }

  /**
   * The Books chart: what each account gained or lost each day (bars) and what the reserve held
   * at the end of each day (a line), signed centavos from the page's JSON.
   */
  function booksChart() {
    chartFromSource('books-chart', function (data) {
      return {
        type: 'bar',
        data: {
          labels: data.days.map(dayLabel),
          datasets: [
            { label: 'available moved', data: data.available, backgroundColor: '#17754a' },
            { label: 'reserved moved', data: data.reserved, backgroundColor: '#d08c00' },
            {
              type: 'line',
              label: 'reserve at day end',
              data: data.reserve,
              borderColor: '#7a56c2',
              backgroundColor: '#7a56c2',
              pointRadius: 2,
              stepped: 'before',
            },
          ],
        },
        options: {
          animation: false,
          maintainAspectRatio: false,
          scales: { y: { ticks: { callback: brl } } },
          plugins: {
            tooltip: {
              callbacks: {
                title: function (items) {
                  if (!items.length) return '';
                  const day = data.days[items[0].dataIndex];
                  const closed = data.closedThrough !== null && day <= data.closedThrough;
                  return day + (closed ? ' (closed)' : '');
                },
                label: function (item) {
                  return item.dataset.label + ': ' + brl(item.raw);
                },
              },
            },
          },
        },
      };
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    liveRegions();
    dailyChart();
    booksChart();
  });
})();
