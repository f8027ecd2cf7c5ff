// Entry script of the deep dive (lesson.html): the modules it imports do nothing on import.
import {startLessonPage} from "../lesson.js";
import {startRecall, watchBuildUp} from "../recall.js";
import {addShareButtons} from "../share-button.js";
import {addReportLinks} from "../report-problem.js";
import {startExercises} from "../widgets/code-exercise.js";

startLessonPage();
startRecall();
const article = document.querySelector("article.lesson[data-lesson]");
if (article) watchBuildUp(article);
addShareButtons();
addReportLinks();
startExercises();
