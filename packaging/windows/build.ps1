# Build the Windows one-folder bundle: build\dist\gpu-planner\gpu-planner.exe
# (+ a .zip with -Archive).
#   powershell -ExecutionPolicy Bypass -File packaging\windows\build.ps1 [-Archive] [-NoSmoke]
# Uses $env:PYTHON if set, else makes a venv in build\venv-build with the "py" launcher.
# The exe is windowed (no console): its --self-test reports by exit status only.
param([switch]$Archive, [switch]$NoSmoke)
$ErrorActionPreference = "Stop"
Set-Location (Join-Path $PSScriptRoot "..\..")
$python = $env:PYTHON
if (-not $python) {
    py -3 -m venv build\venv-build
    $python = "build\venv-build\Scripts\python.exe"
    & $python -m pip install --quiet --upgrade pip
    & $python -m pip install --quiet -e ".[build]"
    if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
}
$buildArgs = @()
if ($Archive) { $buildArgs += "--archive" }
if ($NoSmoke) { $buildArgs += "--no-smoke" }
& $python packaging\build.py @buildArgs
if ($LASTEXITCODE -ne 0) { exit $LASTEXITCODE }
$size = (Get-ChildItem -Recurse build\dist\gpu-planner | Measure-Object -Property Length -Sum).Sum
"build\dist\gpu-planner: {0:N0} MiB" -f ($size / 1MB)
