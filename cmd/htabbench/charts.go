package main

import (
	"bytes"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A chart is one picture: plots in a grid of tiles (one row of one for a
// single plot), written as name.png and name.svg.
type chart struct {
	name          string
	tiles         [][]*plot.Plot
	width, height vg.Length
}

// save writes the chart as PNG and SVG into dir and returns the two paths.
func (c chart) save(dir string) ([]string, error) {
	var paths []string
	for _, ext := range []string{"png", "svg"} {
		var buf bytes.Buffer
		if err := c.render(ext, &buf); err != nil {
			return nil, fmt.Errorf("chart %s.%s: %w", c.name, ext, err)
		}
		path := filepath.Join(dir, c.name+"."+ext)
		if err := writeFileAtomic(path, buf.Bytes()); err != nil {
			return nil, err
		}
		paths = append(paths, path)
	}
	return paths, nil
}

func (c chart) render(ext string, buf *bytes.Buffer) error {
	var dc draw.Canvas
	var out io.WriterTo
	switch ext {
	case "png":
		img := vgimg.NewWith(vgimg.UseWH(c.width, c.height), vgimg.UseDPI(96))
		dc, out = draw.New(img), vgimg.PngCanvas{Canvas: img}
	case "svg":
		s := vgsvg.New(c.width, c.height)
		dc, out = draw.New(s), s
	default:
		return fmt.Errorf("no format %q", ext)
	}
	c.draw(dc)
	_, err := out.WriteTo(buf)
	return err
}

// legendWidth is the strip on the right of a chart that holds its legend,
// outside the data.
const legendWidth = 1.9 * vg.Inch // added to each chart's width by its maker

// draw draws the tiles on dc, aligned so that their data areas line up,
// and the first tile's legend beside them: every tile of a chart draws the
// same series in the same order, so one legend serves them all.
func (c chart) draw(dc draw.Canvas) {
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	legend := c.tiles[0][0].Legend
	legend.Top, legend.Left = true, true
	legend.YOffs = -vg.Millimeter * 8
	for _, row := range c.tiles {
		for _, p := range row {
			p.Legend = plot.NewLegend()
		}
	}
	area := draw.Crop(dc, 0, -legendWidth, 0, 0)
	legend.Draw(draw.Crop(dc, c.width-legendWidth, 0, 0, 0))
	rows, cols := len(c.tiles), 0
	for _, r := range c.tiles {
		cols = max(cols, len(r))
	}
	grid := make([][]*plot.Plot, rows)
	for i, r := range c.tiles {
		grid[i] = make([]*plot.Plot, cols)
		copy(grid[i], r)
	}
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(grid, tiles, area)
	for i := range grid {
		for j, p := range grid[i] {
			if p != nil {
				p.Draw(canvases[i][j])
			}
		}
	}
}

// grid lays plots out in rows of at most cols.
func grid(plots []*plot.Plot, cols int) [][]*plot.Plot {
	var rows [][]*plot.Plot
	for len(plots) > 0 {
		n := min(cols, len(plots))
		rows = append(rows, plots[:n])
		plots = plots[n:]
	}
	return rows
}

// series is one line of a plot: points with NaN coordinates (missing
// measurements) are left out.
type series struct {
	name   string
	xy     plotter.XYs
	dashed bool // a published figure rather than a measurement
}

// axes says how a line plot's axes are labelled and scaled.
type axes struct {
	title, x, y string
	logX, logY  bool
	powTwoX     bool // a log2 x axis labelled 2^n
	yFromZero   bool
}

// linePlot draws each series as a line with points, in a color and glyph
// that follow its position in ss, so that the same arm keeps its color in
// every tile of a chart.
func linePlot(a axes, ss []series) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = a.title
	p.X.Label.Text, p.Y.Label.Text = a.x, a.y
	p.Add(plotter.NewGrid())
	for i, s := range ss {
		xy := finite(s.xy, a.logX || a.powTwoX, a.logY)
		if len(xy) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		}
		p.Add(line, points)
		p.Legend.Add(s.name, line, points)
	}
	if a.logX || a.powTwoX {
		p.X.Scale = plot.LogScale{}
		p.X.Tick.Marker = plot.LogTicks{Prec: -1}
		if a.powTwoX {
			p.X.Tick.Marker = powTwoTicks{}
		}
	}
	if a.logY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	} else if a.yFromZero {
		p.Y.Min = 0
	}
	return p, nil
}

// finite drops points with a NaN or infinite coordinate, and on a log axis
// those that are not positive.
func finite(xy plotter.XYs, logX, logY bool) plotter.XYs {
	var out plotter.XYs
	for _, pt := range xy {
		bad := math.IsNaN(pt.X) || math.IsNaN(pt.Y) || math.IsInf(pt.X, 0) || math.IsInf(pt.Y, 0) ||
			(logX && pt.X <= 0) || (logY && pt.Y <= 0)
		if !bad {
			out = append(out, pt)
		}
	}
	return out
}

// powTwoTicks marks each power of two on a log axis, labelled 2^n, every
// second one when there are many.
type powTwoTicks struct{}

func (powTwoTicks) Ticks(lo, hi float64) []plot.Tick {
	first, last := int(math.Ceil(math.Log2(lo))), int(math.Floor(math.Log2(hi)))
	step := 1
	if last-first > 8 {
		step = 2
	}
	var ticks []plot.Tick
	for n := first; n <= last; n++ {
		t := plot.Tick{Value: math.Exp2(float64(n))}
		if (n-first)%step == 0 {
			t.Label = "2^" + strconv.Itoa(n)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// barGroup is one series of a grouped bar chart: a value per category.
type barGroup struct {
	name   string
	values []float64 // NaN for a missing measurement: no bar
}

// barPlot draws groups side by side over the categories.
func barPlot(a axes, categories []string, groups []barGroup) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = a.title
	p.X.Label.Text, p.Y.Label.Text = a.x, a.y
	p.Add(plotter.NewGrid())
	width := vg.Points(14)
	for i, g := range groups {
		vals := make(plotter.Values, len(g.values))
		for j, v := range g.values {
			if !math.IsNaN(v) {
				vals[j] = v
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return nil, err
		}
		bars.Color = plotutil.Color(i)
		bars.LineStyle.Color = color.Gray{Y: 80}
		bars.Offset = vg.Length(float64(i)-float64(len(groups)-1)/2) * width
		p.Add(bars)
		p.Legend.Add(g.name, bars)
	}
	p.NominalX(categories...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.Y.Min = 0
	return p, nil
}

// writeCharts saves every chart into dir, which exists.
func writeCharts(dir string, charts []chart) ([]string, error) {
	var paths []string
	for _, c := range charts {
		p, err := c.save(dir)
		if err != nil {
			return nil, err
		}
		paths = append(paths, p...)
	}
	return paths, nil
}
