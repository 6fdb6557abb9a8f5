import marimo

__generated_with = "0.25.2"
app = marimo.App()


@app.cell
def _():
    import asyncio

    import marimo as mo

    import ipyask

    return asyncio, ipyask, mo


@app.cell
def _(mo):
    mo.md(r"""
    # ipyask in marimo

    An agent asks **you** questions on the panel below. In marimo the agent runs as an
    asyncio **task**: marimo hands the panel your answer only between cells, so a cell that
    waits for an answer (`await ipyask.ask(...)`, `ipyask.ask_blocking(...)`) raises
    `BlockingUnsupportedError` at once instead of hanging (last cell).
    """)
    return


@app.cell
def _(asyncio, ipyask):
    async def agent():
        db = await ipyask.ask(
            "Which database should the project use?", options=["SQLite", "Postgres", "DuckDB"]
        )
        decision = await ipyask.approve(
            "Delete 3 files in build/?",
            detail="`rm build/a.o build/b.o build/c.o`",
            subject="shell",
            always="Always allow",
        )
        return {"database": db, "delete build files": decision}

    ipyask.show_panel()  # shows the panel in this cell's output, as mo.ui.anywidget(panel)
    task = asyncio.ensure_future(agent())
    return (task,)


@app.cell
def _(mo, task):
    # Run this cell again once you have answered both cards.
    mo.md(f"Agent: {task.result() if task.done() else 'waiting for your answers'}")
    return


@app.cell
async def _(ipyask, mo):
    try:
        await ipyask.ask("Proceed?", options=["Yes", "No"])
        _outcome = "answered"
    except ipyask.errors.BlockingUnsupportedError as _error:
        _outcome = f"{_error.code}: {_error.message}"
    mo.vstack([mo.md("A cell that awaits an answer:"), mo.plain_text(_outcome)])
    return


if __name__ == "__main__":
    app.run()
